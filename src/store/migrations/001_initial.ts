import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db.js';
import { bigint, blob, idColumn } from './types.js';

export function initial(dialect: Dialect) {
  const id = idColumn(dialect);
  const bytes = blob(dialect);
  const big = bigint(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('users')
        .addColumn('id', id.type, id.build)
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull().defaultTo('free'))
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', id.type, id.build)
        .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('last_used_at', big)
        .addColumn('revoked_at', big)
        .execute();
      await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

      await db.schema
        .createTable('endpoints')
        .addColumn('id', id.type, id.build)
        .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('forwarding_url', 'text')
        .addColumn('verify_scheme', 'text')
        .addColumn('signing_secret', 'text')
        .addColumn('previous_signing_secret', 'text')
        .addColumn('previous_secret_expires_at', big)
        .addColumn('signature_header', 'text')
        .addColumn('silence_minutes', dialect === 'postgres' ? 'double precision' : 'real')
        .addColumn('alert_webhook_url', 'text')
        .addColumn('events_total', big, (c) => c.notNull().defaultTo(0))
        .addColumn('last_event_at', big)
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('silence_anchor_at', big)
        .addColumn('silence_deadline', big)
        .addColumn('silence_state', 'text', (c) => c.notNull().defaultTo('ok'))
        .addColumn('failing_since', big)
        .addColumn('failing_state', 'text', (c) => c.notNull().defaultTo('ok'))
        .addColumn('last_delivery_at', big)
        .addColumn('last_delivery_ok', 'integer')
        .execute();
      await db.schema
        .createIndex('endpoints_user_created')
        .on('endpoints')
        .columns(['user_id', 'id'])
        .execute();
      await db.schema
        .createIndex('endpoints_silence_deadline')
        .on('endpoints')
        .column('silence_deadline')
        .where(sql.ref('silence_deadline'), 'is not', null)
        .execute();

      await db.schema
        .createTable('events')
        .addColumn('id', id.type, id.build)
        .addColumn('endpoint_id', big, (c) =>
          c.notNull().references('endpoints.id').onDelete('cascade'),
        )
        .addColumn('user_id', big, (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('query_string', 'text', (c) => c.notNull())
        .addColumn('headers', 'text', (c) => c.notNull())
        .addColumn('body', bytes, (c) => c.notNull())
        .addColumn('size', big, (c) => c.notNull())
        .addColumn('content_type', 'text')
        .addColumn('source_ip', 'text', (c) => c.notNull())
        .addColumn('received_at', big, (c) => c.notNull())
        .addColumn('truncated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('signature', 'text')
        .addColumn('signature_reason', 'text')
        .addColumn('signature_key', 'text')
        .addColumn('forward_status', 'text')
        .addColumn('attempts_started', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Keyset pagination, newest first, per endpoint and per user: no OFFSET, no COUNT.
      await db.schema
        .createIndex('events_endpoint_received')
        .on('events')
        .columns(['endpoint_id', 'received_at', 'id'])
        .execute();
      await db.schema
        .createIndex('events_user_received')
        .on('events')
        .columns(['user_id', 'received_at', 'id'])
        .execute();

      await db.schema
        .createTable('attempts')
        .addColumn('id', id.type, id.build)
        .addColumn('event_id', big, (c) => c.notNull().references('events.id').onDelete('cascade'))
        .addColumn('endpoint_id', big, (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('auto_seq', 'integer')
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('target_url', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('scheduled_at', big, (c) => c.notNull())
        .addColumn('started_at', big)
        .addColumn('finished_at', big)
        .addColumn('duration_ms', 'integer')
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('response_headers', 'text')
        .addColumn('response_body', bytes)
        .addColumn('lease_expires_at', big)
        .addColumn('claimed_by', 'text')
        .addUniqueConstraint('attempts_event_attempt', ['event_id', 'attempt'])
        .execute();
      // The queue: due scheduled rows and expired leases are found through these.
      await db.schema
        .createIndex('attempts_due')
        .on('attempts')
        .columns(['scheduled_at'])
        .where(sql.ref('state'), '=', 'scheduled')
        .execute();
      await db.schema
        .createIndex('attempts_leases')
        .on('attempts')
        .columns(['lease_expires_at'])
        .where(sql.ref('state'), '=', 'in_flight')
        .execute();
      await db.schema
        .createIndex('attempts_endpoint_state')
        .on('attempts')
        .columns(['endpoint_id', 'state'])
        .execute();
    },
  };
}
