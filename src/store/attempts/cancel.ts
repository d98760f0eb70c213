import { type Db, type Store, writeTransaction } from '../db.js';
import { lockEndpointsAgainstDeletion } from './record.js';
import { lockEvent } from './shared.js';

/**
 * Forwarding turned off (DESIGN §5): scheduled automatic attempts of the endpoint are
 * cancelled and its undelivered events marked `cancelled` (a replay the user asked for
 * still goes out). Runs inside the caller's transaction, before it updates the endpoint.
 *
 * On PostgreSQL the locks go in the order a results transaction takes them (endpoint FOR
 * KEY SHARE, then events in id order, the endpoint's own update last): an update of the
 * endpoint first, then its events, closed a cycle with a results transaction that held
 * one of those events and went on to update the endpoint, and PostgreSQL aborted one side.
 */
export async function cancelScheduledForEndpoint(
  store: Store,
  trx: Db,
  endpointId: number,
): Promise<number> {
  if (store.dialect === 'postgres') {
    await lockEndpointsAgainstDeletion(store, trx, [endpointId]);
    await trx
      .selectFrom('events')
      .select('id')
      .where('endpoint_id', '=', endpointId)
      .where('forward_status', 'in', ['pending', 'retrying'])
      .orderBy('id')
      .forNoKeyUpdate()
      .execute();
  }
  // Events before attempts, the order in which an event's deletion takes them.
  await trx
    .updateTable('events')
    .set({ forward_status: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('forward_status', 'in', ['pending', 'retrying'])
    .execute();
  const result = await trx
    .updateTable('attempts')
    .set({ state: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'scheduled')
    .where('trigger', '=', 'auto')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Cancels an event's pending retries: its scheduled automatic attempts, and its status
 * when still pending or retrying. An attempt already in flight finishes and is recorded,
 * but schedules nothing after it. Returns how many attempts were cancelled.
 */
export async function cancelEventRetries(store: Store, eventId: number): Promise<number> {
  return writeTransaction(store, async (trx) => {
    // The event first: a failure being recorded right now either sees `cancelled` and
    // schedules nothing, or commits its next attempt before this cancels it.
    await lockEvent(store, trx, eventId);
    await trx
      .updateTable('events')
      .set({ forward_status: 'cancelled' })
      .where('id', '=', eventId)
      .where('forward_status', 'in', ['pending', 'retrying'])
      .execute();
    const result = await trx
      .updateTable('attempts')
      .set({ state: 'cancelled' })
      .where('event_id', '=', eventId)
      .where('state', '=', 'scheduled')
      .where('trigger', '=', 'auto')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  });
}
