import { type Store, writeTransaction } from '../db.js';
import { recountStarted, unique } from './shared.js';

export interface ReleasedAttempt {
  id: number;
  event_id: number;
  endpoint_id: number;
}

/**
 * Hands claimed attempts back unsent (a worker stopping): scheduled again, due at once,
 * and no longer counted as started.
 */
export async function releaseClaims(
  store: Store,
  claims: Array<{ attemptId: number; claimToken: string }>,
): Promise<ReleasedAttempt[]> {
  if (claims.length === 0) return [];
  return writeTransaction(store, async (trx) => {
    if (store.dialect === 'postgres') {
      // Their events first, the order in which an event's deletion takes them.
      await trx
        .selectFrom('events')
        .select('id')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('attempts')
            .select('event_id')
            .where(
              'id',
              'in',
              claims.map((c) => c.attemptId),
            ),
        )
        .orderBy('id')
        .forNoKeyUpdate()
        .execute();
    }
    const released: ReleasedAttempt[] = [];
    for (const c of [...claims].sort((a, b) => a.attemptId - b.attemptId)) {
      const row = await trx
        .updateTable('attempts')
        .set({ state: 'scheduled', started_at: null, lease_expires_at: null, claimed_by: null })
        .where('id', '=', c.attemptId)
        .where('state', '=', 'in_flight')
        .where('claimed_by', '=', c.claimToken)
        .returning(['id', 'event_id', 'endpoint_id'])
        .executeTakeFirst();
      if (row) released.push(row);
    }
    if (released.length > 0) await recountStarted(trx, unique(released.map((r) => r.event_id)));
    return released;
  });
}

/**
 * In-flight attempts whose lease ran out — the process sending them died — go back to
 * `scheduled`, due at once: delivery is at-least-once (DESIGN §5).
 */
export async function releaseExpiredLeases(store: Store, now: number): Promise<ReleasedAttempt[]> {
  return writeTransaction(store, async (trx) => {
    let expired = trx
      .selectFrom('attempts as a')
      .innerJoin('events as ev', 'ev.id', 'a.event_id')
      .select('a.id')
      .where('a.state', '=', 'in_flight')
      .where('a.lease_expires_at', '<', now)
      .orderBy('a.id')
      .limit(500);
    // The event rows too, whose counters change below: waiting for one while holding
    // its attempt would deadlock with the event's deletion, which takes them the other
    // way round. What is locked now is released on the next poll.
    if (store.dialect === 'postgres') expired = expired.forNoKeyUpdate(['a', 'ev']).skipLocked();
    const ids = (await expired.execute()).map((r) => r.id);
    if (ids.length === 0) return [];
    const released = await trx
      .updateTable('attempts')
      .set({ state: 'scheduled', started_at: null, lease_expires_at: null, claimed_by: null })
      .where('id', 'in', ids)
      .where('state', '=', 'in_flight')
      .returning(['id', 'event_id', 'endpoint_id'])
      .execute();
    if (released.length > 0) await recountStarted(trx, unique(released.map((r) => r.event_id)));
    return released;
  });
}
