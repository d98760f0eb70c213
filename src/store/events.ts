import type { Selectable } from 'kysely';
import type { Db, Store } from './db.js';
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
 *
 * Every page, the first too, is one backward range scan of the (endpoint_id | user_id,
 * received_at, id) index: `owner >= X AND (owner, received_at, id) < (X, at, id)`, in
 * that index's order. Written as `owner = X AND received_at <= at`, PostgreSQL may
 * choose the single-column received_at index and filter other tenants' rows, which is
 * cheap on its statistics but unbounded when one tenant's recent traffic buries another's
 * history; PostgreSQL 15 also starts a backward scan at the equality, not at the row
 * bound, when both are given. The first page is the range before the end of time.
 */
export async function listEvents(
  store: Store,
  query: { userId: number; endpointId?: number | null; limit: number; before?: EventCursor | null },
): Promise<EventSummaryRow[]> {
  const column = query.endpointId == null ? 'user_id' : 'endpoint_id';
  const owner = query.endpointId ?? query.userId;
  const at = query.before?.receivedAt ?? Number.MAX_SAFE_INTEGER;
  const id = query.before?.id ?? null;
  let q = store.db
    .selectFrom('events')
    .select(SUMMARY_COLUMNS)
    .where(column, '>=', owner)
    .where(({ eb, refTuple, tuple }) =>
      id === null
        ? eb(refTuple(column, 'received_at'), '<', tuple(owner, at))
        : eb(refTuple(column, 'received_at', 'id'), '<', tuple(owner, at, id)),
    );
  if (query.endpointId != null) q = q.where('user_id', '=', query.userId);
  return q
    .orderBy(column, 'desc')
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .execute();
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

/**
 * An event with every attempt, read in one snapshot: the delivery worker updates the
 * attempt and the event's `forward_status` together, and two separate reads could show
 * one without the other.
 */
export async function findEventWithAttempts(
  store: Store,
  userId: number,
  id: number,
): Promise<{ event: EventRow; attempts: AttemptRow[] } | undefined> {
  const read = async (db: Db) => {
    const event = await db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!event) return undefined;
    const attempts = await db
      .selectFrom('attempts')
      .selectAll()
      .where('event_id', '=', id)
      .orderBy('attempt', 'asc')
      .execute();
    return { event, attempts };
  };
  return store.dialect === 'postgres'
    ? store.db.transaction().setIsolationLevel('repeatable read').execute(read)
    : store.db.transaction().execute(read);
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
