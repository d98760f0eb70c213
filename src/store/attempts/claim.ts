import type { Selectable } from 'kysely';
import { type Store, type WriteOptions, writeTransaction } from '../db.js';
import type { AttemptTrigger, DbEvent } from '../schema.js';
import { type AttemptRow, recountStarted, unique } from './shared.js';

export interface ClaimCandidate {
  id: number;
  endpoint_id: number;
  trigger: AttemptTrigger;
  target_url: string | null;
  /** The endpoint's forwarding URL now: automatic attempts go to it (DESIGN §5). */
  forwarding_url: string | null;
}

export interface ClaimOptions {
  now: number;
  leaseMicros: number;
  /** Unique per claim: finishing or handing back is guarded by it. */
  claimToken: string;
  /** How many due rows to look at. */
  limit: number;
  /** Endpoints whose destination is saturated here: their automatic attempts wait. */
  skipEndpoints?: readonly number[];
  /** Picks which of the locked candidates to take (per-host caps); default all. */
  choose?: (candidates: ClaimCandidate[]) => number[];
}

export interface ClaimedAttempt {
  row: AttemptRow;
  forwardingUrl: string | null;
}

const CLAIM_TRANSACTION: WriteOptions = {
  // A claim lost to a power cut puts its attempts back where they were: they go out
  // again, as after a lost lease (at-least-once, DESIGN §5).
  durable: false,
  // The due rows must be read in index order and the scan stop at `limit`. A queue table
  // grows and drains faster than statistics follow, and with stale ones the planner sorts
  // every due row instead (measured: 18 ms a claim at a backlog of 5,000 instead of
  // 0.1 ms), so the sorted index path is made the only choice.
  settings: { enable_bitmapscan: 'off', enable_sort: 'off' },
};

/**
 * Claims due attempts under a lease. Due means: scheduled, `scheduled_at` reached, and
 * either a replay (it goes out even while paused) or an automatic attempt of an active
 * endpoint that still forwards, for an event still pending or retrying. PostgreSQL
 * locks the candidates with SKIP LOCKED, so instances claim disjoint rows without
 * waiting on each other; SQLite's write transaction is already exclusive, and the
 * update is guarded by `state = 'scheduled'` either way.
 */
export async function claimDueAttempts(
  store: Store,
  options: ClaimOptions,
): Promise<ClaimedAttempt[]> {
  const { now, limit } = options;
  if (limit <= 0) return [];
  return writeTransaction(
    store,
    async (trx) => {
      let query = trx
        .selectFrom('attempts as a')
        .innerJoin('endpoints as en', 'en.id', 'a.endpoint_id')
        .innerJoin('events as ev', 'ev.id', 'a.event_id')
        .select(['a.id', 'a.endpoint_id', 'a.trigger', 'a.target_url', 'en.forwarding_url'])
        .where('a.state', '=', 'scheduled')
        .where('a.scheduled_at', '<=', now)
        .where((eb) =>
          eb.or([
            eb('a.trigger', '=', 'replay'),
            eb.and([
              eb('en.is_active', '=', 1),
              eb('en.forwarding_url', 'is not', null),
              eb('ev.forward_status', 'in', ['pending', 'retrying']),
            ]),
          ]),
        );
      const skip = options.skipEndpoints ?? [];
      if (skip.length > 0) {
        query = query.where((eb) =>
          eb.or([eb('a.trigger', '=', 'replay'), eb('a.endpoint_id', 'not in', [...skip])]),
        );
      }
      query = query.orderBy('a.scheduled_at').limit(limit);
      if (store.dialect === 'postgres') {
        // The event row is locked too: claiming updates its counter, and a cancel that
        // holds it must not be waited on here (it is skipped until the next pass).
        query = query.forNoKeyUpdate(['a', 'ev']).skipLocked();
      }
      const candidates = (await query.execute()) as ClaimCandidate[];
      if (candidates.length === 0) return [];
      const ids = options.choose ? options.choose(candidates) : candidates.map((c) => c.id);
      if (ids.length === 0) return [];

      const rows = await trx
        .updateTable('attempts')
        .set({
          state: 'in_flight',
          started_at: now,
          lease_expires_at: now + options.leaseMicros,
          claimed_by: options.claimToken,
        })
        .where('id', 'in', ids)
        .where('state', '=', 'scheduled')
        .returningAll()
        .execute();
      if (rows.length === 0) return [];
      await recountStarted(trx, unique(rows.map((r) => r.event_id)));
      const forwarding = new Map(candidates.map((c) => [c.id, c.forwarding_url]));
      return rows
        .sort((a, b) => a.scheduled_at - b.scheduled_at || a.id - b.id)
        .map((row) => ({ row, forwardingUrl: forwarding.get(row.id) ?? null }));
    },
    CLAIM_TRANSACTION,
  );
}

export type DeliveryPayload = Pick<
  Selectable<DbEvent>,
  'id' | 'method' | 'path' | 'query_string' | 'headers' | 'body'
>;

/** What a claimed attempt sends: read after the claim committed (events never change). */
export async function loadDeliveryPayloads(
  store: Store,
  eventIds: number[],
): Promise<Map<number, DeliveryPayload>> {
  if (eventIds.length === 0) return new Map();
  const rows = await store.db
    .selectFrom('events')
    .select(['id', 'method', 'path', 'query_string', 'headers', 'body'])
    .where('id', 'in', unique(eventIds))
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}
