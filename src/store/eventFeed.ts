import type { Store } from './db.js';
import { type EventSummaryRow, SUMMARY_COLUMNS } from './events.js';

/**
 * The dashboard's live feed reads events by id rather than by time: an SSE `id:` is an
 * event id, so "what did this viewer miss" is "ids above the last one it saw".
 */
export async function listEventsAfter(
  store: Store,
  query: { userId: number; endpointId: number; afterId: number; limit: number },
): Promise<EventSummaryRow[]> {
  return store.db
    .selectFrom('events')
    .select(SUMMARY_COLUMNS)
    .where('id', '>', query.afterId)
    .where('endpoint_id', '=', query.endpointId)
    .where('user_id', '=', query.userId)
    .orderBy('id', 'asc')
    .limit(query.limit)
    .execute();
}

/**
 * Ids of an endpoint's events in (afterId, beforeId): how the feed finds an event that
 * committed after a higher id did (two instances capturing at once on PostgreSQL).
 */
export async function listEventIdsBetween(
  store: Store,
  query: { userId: number; endpointId: number; afterId: number; beforeId: number; limit: number },
): Promise<number[]> {
  const rows = await store.db
    .selectFrom('events')
    .select('id')
    .where('id', '>', query.afterId)
    .where('id', '<', query.beforeId)
    .where('endpoint_id', '=', query.endpointId)
    .where('user_id', '=', query.userId)
    .orderBy('id', 'asc')
    .limit(query.limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function findEventSummaries(
  store: Store,
  userId: number,
  ids: readonly number[],
): Promise<EventSummaryRow[]> {
  if (ids.length === 0) return [];
  return store.db
    .selectFrom('events')
    .select(SUMMARY_COLUMNS)
    .where('id', 'in', ids)
    .where('user_id', '=', userId)
    .orderBy('id', 'asc')
    .execute();
}

/** The highest event id of an endpoint, 0 when it has none. */
export async function findNewestEventId(
  store: Store,
  userId: number,
  endpointId: number,
): Promise<number> {
  const row = await store.db
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('endpoint_id', '=', endpointId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}
