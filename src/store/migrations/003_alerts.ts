import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db.js';
import { bigint, idColumn } from './types.js';

/**
 * The alert outbox and history (DESIGN §6): one row per notice, with each channel's
 * outcome. A row is written in the same transaction that claims the endpoint's state
 * change, before anything is sent, so a crash between claim and send loses nothing.
 */
export function alerts(dialect: Dialect) {
  const id = idColumn(dialect);
  const big = bigint(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('alerts')
        .addColumn('id', id.type, id.build)
        .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
        // Deleting an endpoint keeps its alert history (the name is copied below).
        .addColumn('endpoint_id', big, (c) => c.references('endpoints.id').onDelete('set null'))
        .addColumn('endpoint_name', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('since', big)
        .addColumn('recovered_at', big)
        .addColumn('threshold_minutes', dialect === 'postgres' ? 'double precision' : 'real', (c) =>
          c.notNull(),
        )
        .addColumn('email_to', 'text')
        .addColumn('email_status', 'text', (c) => c.notNull())
        .addColumn('email_tries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('email_error', 'text')
        .addColumn('email_sent_at', big)
        .addColumn('webhook_url', 'text')
        .addColumn('webhook_status', 'text', (c) => c.notNull())
        .addColumn('webhook_tries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('webhook_error', 'text')
        .addColumn('webhook_sent_at', big)
        .addColumn('next_try_at', big)
        .execute();
      // The dashboard's list: keyset paging, newest first.
      await db.schema
        .createIndex('alerts_user_created')
        .on('alerts')
        .columns(['user_id', 'created_at', 'id'])
        .execute();
      // The outbox: rows with a channel still to send.
      await db.schema
        .createIndex('alerts_next_try')
        .on('alerts')
        .column('next_try_at')
        .where(sql.ref('next_try_at'), 'is not', null)
        .execute();
      // A recovery notice looks up the alert it closes; SET NULL on endpoint delete uses it too.
      await db.schema
        .createIndex('alerts_endpoint_kind')
        .on('alerts')
        .columns(['endpoint_id', 'kind', 'id'])
        .execute();

      // The scheduler's checks are indexed queries, not scans of all endpoints.
      await db.schema
        .createIndex('endpoints_silence_open')
        .on('endpoints')
        .column('silence_state')
        .where(sql.ref('silence_state'), '<>', 'ok')
        .execute();
      await db.schema
        .createIndex('endpoints_failing_since')
        .on('endpoints')
        .column('failing_since')
        .where(sql.ref('failing_since'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('endpoints_failing_open')
        .on('endpoints')
        .column('failing_state')
        .where(sql.ref('failing_state'), '<>', 'ok')
        .execute();
    },
  };
}
