import type { Store } from '../db.js';

/** The earliest scheduled attempt after `after`, to set a timer for it; null when none. */
export async function nextScheduledAt(store: Store, after: number): Promise<number | null> {
  const row = await store.db
    .selectFrom('attempts')
    .select((eb) => eb.fn.min('scheduled_at').as('at'))
    .where('state', '=', 'scheduled')
    .where('scheduled_at', '>', after)
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}

/** How many attempts are due and could go out now, and since when the oldest waits. */
export async function dueQueueStats(
  store: Store,
  now: number,
): Promise<{ due: number; oldestScheduledAt: number | null }> {
  const row = await store.db
    .selectFrom('attempts as a')
    .innerJoin('endpoints as en', 'en.id', 'a.endpoint_id')
    .select((eb) => [eb.fn.countAll().as('due'), eb.fn.min('a.scheduled_at').as('oldest')])
    .where('a.state', '=', 'scheduled')
    .where('a.scheduled_at', '<=', now)
    .where((eb) =>
      eb.or([
        eb('a.trigger', '=', 'replay'),
        eb.and([eb('en.is_active', '=', 1), eb('en.forwarding_url', 'is not', null)]),
      ]),
    )
    .executeTakeFirst();
  return {
    due: Number(row?.due ?? 0),
    oldestScheduledAt: row?.oldest == null ? null : Number(row.oldest),
  };
}
