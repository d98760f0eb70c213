import { type Selectable, sql } from 'kysely';
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
 * on (received_at, id) over the (endpoint_id, received_at, id) index: the cost of a page
 * does not grow with its depth.
 */
export async function listEvents(
  store: Store,
  query: { userId: number; endpointId?: number | null; limit: number; before?: EventCursor | null },
): Promise<EventSummaryRow[]> {
  const before = query.before ?? null;
  if (query.endpointId != null) {
    return endpointPage(store.db, query.userId, query.endpointId, query.limit, before);
  }
  return userPage(store, query.userId, query.limit, before);
}

/**
 * One endpoint's events older than `before` (and not older than `from`), newest first:
 * one backward range scan of the (endpoint_id, received_at, id) index,
 * `endpoint_id >= X AND (endpoint_id, received_at, id) < (X, at, id)`, in that index's
 * order. Written as `endpoint_id = X AND received_at <= at`, PostgreSQL 15 starts a
 * backward scan at the equality, not at the row bound, when both are given. The first
 * page is the range before the end of time. The lower bound replaces `endpoint_id >= X`
 * rather than joining it: beside it, SQLite bounds the scan by `endpoint_id` alone and
 * reads on past `from`.
 */
function endpointRange(
  db: Db,
  endpointId: number,
  before: EventCursor | null,
  from: { receivedAt: number; id: number } | null = null,
) {
  const at = before?.receivedAt ?? Number.MAX_SAFE_INTEGER;
  const id = before?.id ?? null;
  return db
    .selectFrom('events')
    .where(({ eb, refTuple, tuple }) =>
      from === null
        ? eb('endpoint_id', '>=', endpointId)
        : eb(
            refTuple('endpoint_id', 'received_at', 'id'),
            '>=',
            tuple(endpointId, from.receivedAt, from.id),
          ),
    )
    .where(({ eb, refTuple, tuple }) =>
      id === null
        ? eb(refTuple('endpoint_id', 'received_at'), '<', tuple(endpointId, at))
        : eb(refTuple('endpoint_id', 'received_at', 'id'), '<', tuple(endpointId, at, id)),
    )
    .orderBy('endpoint_id', 'desc')
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc');
}

function endpointPage(
  db: Db,
  userId: number,
  endpointId: number,
  limit: number,
  before: EventCursor | null,
): Promise<EventSummaryRow[]> {
  return endpointRange(db, endpointId, before)
    .select(SUMMARY_COLUMNS)
    .where('user_id', '=', userId)
    .limit(limit)
    .execute();
}

/** What the inspector narrows an endpoint's list to; null matches everything. */
export interface EventFilter {
  method: string | null;
  /** `none`: events whose endpoint verified nothing (a null label). */
  signature: 'valid' | 'invalid' | 'none' | null;
}

/**
 * Events one filtered page reads at most. No index serves a filter (each index entry
 * costs every capture; one on the user cost capture 7 % on SQLite), so a filtered page
 * walks the endpoint's index from its cursor, and a rare match could mean reading every
 * event the endpoint has, on SQLite with the event loop that answers captures held.
 * A page of 5,000 rows with 1 KiB bodies and no match took 2–3 ms on SQLite and 4–5 ms
 * on PostgreSQL (median, 50,000 events).
 */
export const FILTER_SCAN_ROWS = 5000;

export interface FilteredPage {
  rows: EventSummaryRow[];
  /**
   * The oldest event the scan read, when it stopped before the endpoint's oldest: the
   * page may hold fewer than `limit` rows, and the next one goes on from here.
   */
  scannedTo: EventCursor | null;
}

/**
 * A page of one endpoint's events that match `filter`, newest first, found among at most
 * `scanRows` events from the cursor on: the bound is found on the index alone (it holds
 * received_at and id), then the filter reads only the rows inside it.
 */
export async function listFilteredEvents(
  store: Store,
  query: {
    userId: number;
    endpointId: number;
    limit: number;
    before: EventCursor | null;
    filter: EventFilter;
    scanRows?: number;
  },
): Promise<FilteredPage> {
  const { userId, endpointId, before, filter } = query;
  const scanRows = query.scanRows ?? FILTER_SCAN_ROWS;
  // On the index alone: the bound is a position, and the rows read below are the user's.
  const bound = await endpointRange(store.db, endpointId, before)
    .select(['received_at', 'id'])
    .limit(1)
    .offset(scanRows - 1)
    .executeTakeFirst();
  const scannedTo = bound ? { receivedAt: bound.received_at, id: bound.id } : null;
  const rows = await endpointRange(store.db, endpointId, before, scannedTo)
    .select(SUMMARY_COLUMNS)
    .where('user_id', '=', userId)
    .$if(filter.method !== null, (qb) => qb.where('method', '=', filter.method!))
    .$if(filter.signature === 'none', (qb) => qb.where('signature', 'is', null))
    .$if(filter.signature === 'valid' || filter.signature === 'invalid', (qb) =>
      qb.where('signature', '=', filter.signature as 'valid' | 'invalid'),
    )
    .limit(query.limit)
    .execute();
  return { rows, scannedTo };
}

const newestFirst = (a: EventSummaryRow, b: EventSummaryRow) =>
  b.received_at - a.received_at || b.id - a.id;

/**
 * A page across all of a user's endpoints: the newest `limit` of each endpoint's own
 * page, merged. Every event belongs to one of its owner's endpoints (deleting an endpoint
 * deletes its events), so no index on the user is needed, and none is kept: a second
 * index entry per captured event cost capture 7 % of its throughput on SQLite. On
 * PostgreSQL the merge is one statement (a lateral join); SQLite, in this process, runs
 * the pages one after another.
 */
async function userPage(
  store: Store,
  userId: number,
  limit: number,
  before: EventCursor | null,
): Promise<EventSummaryRow[]> {
  if (store.dialect === 'postgres') {
    const at = before?.receivedAt ?? Number.MAX_SAFE_INTEGER;
    const bound =
      before?.id == null
        ? sql`(ev.endpoint_id, ev.received_at) < (en.id, ${at})`
        : sql`(ev.endpoint_id, ev.received_at, ev.id) < (en.id, ${at}, ${before.id})`;
    const columns = sql.join(SUMMARY_COLUMNS.map((c) => sql.ref(`ev.${c}`)));
    const { rows } = await sql<EventSummaryRow>`select page.* from endpoints en
      cross join lateral (
        select ${columns} from events ev
        where ev.endpoint_id >= en.id and ${bound}
        order by ev.endpoint_id desc, ev.received_at desc, ev.id desc
        limit ${limit}
      ) page
      where en.user_id = ${userId}
      order by page.received_at desc, page.id desc
      limit ${limit}`.execute(store.db);
    return rows;
  }
  const endpoints = await store.db
    .selectFrom('endpoints')
    .select('id')
    .where('user_id', '=', userId)
    .execute();
  const pages: EventSummaryRow[] = [];
  for (const { id } of endpoints) {
    pages.push(...(await endpointPage(store.db, userId, id, limit, before)));
  }
  return pages.sort(newestFirst).slice(0, limit);
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
