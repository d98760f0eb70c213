import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db.js';

/**
 * Signup and login throttling (DESIGN §8): 20 attempts a minute per source address, and
 * 10 failed logins per account in 15 minutes. In PostgreSQL mode every instance must
 * count against the same budgets, or each of N instances behind a load balancer would
 * allow its own (DESIGN §1: rate-limit counters live in the database). SQLite mode is one
 * process and keeps both in memory.
 */
export function loginThrottle(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('login_failures')
        // Unlogged, as rate_limits and address_limits: after a PostgreSQL crash they come
        // back empty, which only gives everyone their full budget again.
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

      // Per source address and route: a fixed window's hit count, as the rate-limit
      // plugin's own memory store keeps it.
      await db.schema
        .createTable('address_limits')
        .modifyFront(sql`unlogged`)
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('hits', 'integer', (c) => c.notNull())
        .addColumn('window_ends_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('address_limits_window_ends_at')
        .on('address_limits')
        .column('window_ends_at')
        .execute();
    },
  };
}
