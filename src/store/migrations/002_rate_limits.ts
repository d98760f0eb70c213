import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db.js';

/**
 * The REST API's sliding log (DESIGN §7). In PostgreSQL mode every instance must count
 * against the same budget, so the log lives in the database: one row per API key
 * holding the times of its admitted requests in the last window (at most the limit,
 * 120, so a row stays small). SQLite mode is one process and keeps the log in memory,
 * which spares every API call a write transaction and its fsync.
 */
export function rateLimits(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('rate_limits')
        // Unlogged: no WAL, so an API call does not wait for a disk flush while holding
        // its key's row lock. After a PostgreSQL crash the table comes back empty, which
        // only means every key starts with a full budget.
        .modifyFront(sql`unlogged`)
        .addColumn('key_id', 'bigint', (c) =>
          c.primaryKey().references('api_keys.id').onDelete('cascade'),
        )
        .addColumn('log', sql`bigint[]`, (c) => c.notNull())
        // Whether the last statement that touched the row admitted its request: the
        // upsert reports its own decision through RETURNING.
        .addColumn('admitted', 'boolean', (c) => c.notNull())
        .execute();
      // The row is rewritten on every API call; free space on its page lets PostgreSQL
      // update it in place (a HOT update) instead of growing the table.
      await sql`alter table rate_limits set (fillfactor = 50)`.execute(db);
    },
  };
}
