import type { Selectable } from 'kysely';
import type { Store } from './db.js';
import type { DbAttempt, DbEvent } from './schema.js';

export type EventRow = Selectable<DbEvent>;
export type AttemptRow = Selectable<DbAttempt>;
export type EventSummaryRow = Omit<EventRow, 'body' | 'headers'>;

/** Keyset position: strictly older than `receivedAt`, or as old with a smaller id. */
export interface EventCursor {
  receivedAt: number;
  id: number | null;
}

export const SUMMARY_COLUMNS = [
  'id',
  'endpoint_id',
  'user_id',
  'method',
  'path',
  'query_string',
  'size',
  'content_type',
  'source_ip',
  'received_at',
  'truncated',
  'signature',
  'signature_reason',
  'signature_key',
  'forward_status',
  'attempts_started',
] as const;

/**
 * A page of a user's events, newest first, optionally of one endpoint. Keyset paging
 * on (received_at, id) over an index: the cost of a page does not grow with its depth.
 */
export async function listEvents(
  store: Store,
  query: { userId: number; endpointId?: number | null; limit: number; before?: EventCursor | null },
): Promise<EventSummaryRow[]> {
  let q = store.db.selectFrom('events').select(SUMMARY_COLUMNS);
  q =
    query.endpointId == null
      ? q.where('user_id', '=', query.userId)
      : q.where('endpoint_id', '=', query.endpointId).where('user_id', '=', query.userId);
  const before = query.before;
  if (before) {
    if (before.id === null) {
      q = q.where('received_at', '<', before.receivedAt);
    } else {
      // The first conjunct is an index range; the second only sorts out equal times.
      const id = before.id;
      q = q
        .where('received_at', '<=', before.receivedAt)
        .where((eb) => eb.or([eb('received_at', '<', before.receivedAt), eb('id', '<', id)]));
    }
  }
  return q.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}

export async function findEvent(
  store: Store,
  userId: number,
  id: number,
): Promise<EventRow | undefined> {
  return store.db
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Every attempt of an event, by number. */
export async function listAttempts(store: Store, eventId: number): Promise<AttemptRow[]> {
  return store.db
    .selectFrom('attempts')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('attempt', 'asc')
    .execute();
}

/** Rows stored for an endpoint (benchmarks and checks; the API never counts events). */
export async function countEvents(store: Store, endpointId: number): Promise<number> {
  const row = await store.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
