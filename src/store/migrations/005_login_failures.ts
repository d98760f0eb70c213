import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db.js';

/**
 * Failed logins per account (DESIGN §8: 10 per 15 minutes). In PostgreSQL mode every
 * instance must count against the same budget, or each of N instances behind a load
 * balancer would allow its own 10 (DESIGN §1: rate-limit counters live in the database).
 * One row per address that failed lately, holding the times of its recent failures.
 * SQLite mode is one process and keeps them in memory.
 */
export function loginFailures(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('login_failures')
        // Unlogged, as rate_limits: after a PostgreSQL crash it comes back empty, which
        // only gives every account its full budget again.
        .modifyFront(sql`unlogged`)
        .addColumn('email', 'text', (c) => c.primaryKey())
        .addColumn('log', sql`bigint[]`, (c) => c.notNull())
        // When the newest failure stops counting: the retention sweep drops the row then.
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        // Whether the last statement that touched the row let its attempt through: the
        // upsert reports its own decision through RETURNING.
        .addColumn('admitted', 'boolean', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('login_failures_expires_at')
        .on('login_failures')
        .column('expires_at')
        .execute();
    },
  };
}
