import { type Db, type Store, writeTransaction } from '../db.js';
import { lockEvent } from './shared.js';

/**
 * Forwarding turned off (DESIGN §5): scheduled automatic attempts of the endpoint are
 * cancelled and its undelivered events marked `cancelled` (a replay the user asked for
 * still goes out). Takes the database or a transaction.
 */
export async function cancelScheduledForEndpoint(db: Db, endpointId: number): Promise<number> {
  // Events before attempts, the order in which an event's deletion takes them.
  await db
    .updateTable('events')
    .set({ forward_status: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('forward_status', 'in', ['pending', 'retrying'])
    .execute();
  const result = await db
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
