import { sql } from 'kysely';
import type { Store } from './db.js';

/** A key's sliding log: the admitted requests in the current window. */
export interface RateUsage {
  /** How many (after a decision: this request included when admitted). */
  used: number;
  /** The oldest of them (microseconds), null when there are none. */
  oldest: number | null;
}

export interface RateDecision extends RateUsage {
  admitted: boolean;
}

export interface RateWindow {
  keyId: number;
  now: number;
  windowMicros: number;
  max: number;
}

/**
 * Admits the request when fewer than `max` requests were admitted in (now − window, now],
 * and records it; a refused request is not recorded (a client that keeps polling gets
 * back in). PostgreSQL only (see migration 002).
 *
 * One statement, race-free across instances: INSERT … ON CONFLICT DO UPDATE locks the
 * key's row, so concurrent calls for one key queue on that lock and each decides on the
 * log the previous one committed. Old entries are dropped in the same update, so the
 * row never holds more than `max` times.
 */
export async function takeRateSlot(store: Store, w: RateWindow): Promise<RateDecision> {
  if (w.max < 1) throw new Error('a rate limit must admit at least one request');
  const cutoff = w.now - w.windowMicros;
  const { rows } = await sql<{ admitted: boolean; used: number; oldest: number | null }>`
    insert into rate_limits as r (key_id, log, admitted)
    values (${w.keyId}, array[${w.now}::bigint], true)
    on conflict (key_id) do update set
      log = array(select t from unnest(r.log) as t where t > ${cutoff} order by t)
        || case when (select count(*) from unnest(r.log) as t where t > ${cutoff}) < ${w.max}
             then array[${w.now}::bigint] else array[]::bigint[] end,
      admitted = (select count(*) from unnest(r.log) as t where t > ${cutoff}) < ${w.max}
    returning r.admitted, cardinality(r.log) as used, (select min(t) from unnest(r.log) as t) as oldest
  `.execute(store.db);
  const row = rows[0]!;
  return { admitted: row.admitted, used: row.used, oldest: row.oldest };
}

/** The log as it stands, without using budget (for answers that must not count). */
export async function readRateUsage(store: Store, w: Omit<RateWindow, 'max'>): Promise<RateUsage> {
  const cutoff = w.now - w.windowMicros;
  const { rows } = await sql<{ used: number; oldest: number | null }>`
    select (select count(*) from unnest(log) as t where t > ${cutoff})::int as used,
           (select min(t) from unnest(log) as t where t > ${cutoff}) as oldest
    from rate_limits where key_id = ${w.keyId}
  `.execute(store.db);
  const row = rows[0];
  return { used: row?.used ?? 0, oldest: row?.oldest ?? null };
}
