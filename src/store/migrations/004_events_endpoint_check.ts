import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db.js';

/**
 * PostgreSQL drops the foreign key from events to endpoints. Its check ran once per
 * captured row — a query and a row lock each — and cost a large share of a batch's server
 * time; the capture statement now locks each endpoint once per batch instead and stores
 * only the events of endpoints that still exist, and deleting an endpoint deletes its
 * events itself (src/store/endpoints.ts). SQLite keeps the key: there the check is cheap,
 * and dropping it would mean rebuilding the table.
 */
export function eventsEndpointCheck(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table events drop constraint if exists events_endpoint_id_fkey`.execute(db);
    },
  };
}
