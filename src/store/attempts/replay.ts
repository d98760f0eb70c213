import { type Store, writeTransaction } from '../db.js';
import { type AttemptRow, lockEvent } from './shared.js';

/** A replay (DESIGN §5): one attempt, due now, numbered after every existing one. */
export async function insertReplayAttempt(
  store: Store,
  input: { eventId: number; endpointId: number; targetUrl: string; now: number },
): Promise<AttemptRow> {
  return writeTransaction(store, async (trx) => {
    await lockEvent(store, trx, input.eventId);
    const last = await trx
      .selectFrom('attempts')
      .select((eb) => eb.fn.max('attempt').as('n'))
      .where('event_id', '=', input.eventId)
      .executeTakeFirst();
    return trx
      .insertInto('attempts')
      .values({
        event_id: input.eventId,
        endpoint_id: input.endpointId,
        attempt: Number(last?.n ?? 0) + 1,
        auto_seq: null,
        trigger: 'replay',
        target_url: input.targetUrl,
        state: 'scheduled',
        scheduled_at: input.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}
