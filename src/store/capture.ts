import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { PostgresNotice } from './bus.js';
import type { Store } from './db.js';
import type { ForwardStatus, SignatureKey, SignatureLabel, SignatureReason } from './schema.js';

export interface CapturedEvent {
  endpointId: number;
  userId: number;
  method: string;
  path: string;
  queryString: string;
  /** The raw ordered [name, value] pairs as JSON text. */
  headers: string;
  body: Buffer;
  size: number;
  contentType: string | null;
  sourceIp: string;
  receivedAt: number;
  truncated: boolean;
  signature: SignatureLabel | null;
  signatureReason: SignatureReason | null;
  signatureKey: SignatureKey | null;
  forwardStatus: ForwardStatus | null;
  /** Set when attempt 1 is queued with the event: the target as of capture time. */
  firstAttemptUrl: string | null;
}

/**
 * Per captured event, in batch order: its id, or null when its endpoint was deleted while
 * the request was being read (nothing is stored for it; capture answers 404).
 */
export type StoredIds = Array<number | null>;

/**
 * Group commit: one transaction for a whole batch — the events, their first delivery
 * attempts and the endpoint counters — so the commit (and its fsync) is paid once per
 * batch. On PostgreSQL the same statement sends `notices` to the other instances, saving
 * a round trip per batch. A deleted endpoint fails only its own events, not the batch.
 *
 * This is the hot path, so it is written per dialect below Kysely: on SQLite, cached
 * prepared statements in one `BEGIN IMMEDIATE`; on PostgreSQL, one statement (one round
 * trip, its own transaction) that takes the batch as arrays.
 */
export async function insertCapturedEvents(
  store: Store,
  items: CapturedEvent[],
  notices: readonly PostgresNotice[] = [],
): Promise<StoredIds> {
  if (items.length === 0) return [];
  if (store.sqlite) {
    const raw = store.sqlite;
    // On the event loop's own connection, synchronously: the loop stands still for the
    // commit (its fsync included), but one connection never waits on another's write
    // lock, and on a 2-core machine handing batches to a writer thread measured worse:
    // 20 % more CPU per capture in thread wake-ups and cloning, and lower throughput.
    // Holding Kysely's connection keeps its own queries (and transactions) off the
    // connection while the batch runs.
    return store.db.connection().execute(async () => commitSqliteBatch(raw, items));
  }
  if (!store.pgPool) throw new Error('a PostgreSQL store without its pool');
  return insertPostgres(store.pgPool, items, notices);
}

// Silence deadline: max(last event, the moment the threshold was set) + threshold.
// Traffic after a silence alert moves the state to 'recovering': the alerts worker then
// sends the recovered notice.
const SQLITE_ENDPOINT_COUNTERS = `update endpoints set
      events_total = events_total + @count,
      last_event_at = max(coalesce(last_event_at, 0), @last),
      silence_deadline = case when silence_minutes is null then null
        else max(coalesce(silence_anchor_at, 0), @last) + cast(silence_minutes * 60000000 as integer) end,
      silence_state = case when silence_state = 'alerted' then 'recovering' else silence_state end
    where id = @id`;

/** Commits a batch on the raw SQLite connection under Kysely. */
function commitSqliteBatch(db: SqliteDatabase.Database, items: CapturedEvent[]): StoredIds {
  return sqliteStatements(db).batch.immediate(items);
}

interface SqliteCapture {
  batch: SqliteDatabase.Transaction<(items: CapturedEvent[]) => StoredIds>;
}

const prepared = new WeakMap<SqliteDatabase.Database, SqliteCapture>();

function sqliteStatements(db: SqliteDatabase.Database): SqliteCapture {
  const cached = prepared.get(db);
  if (cached) return cached;
  const insertEvent = db.prepare(
    `insert into events (endpoint_id, user_id, method, path, query_string, headers, body, size,
       content_type, source_ip, received_at, truncated, signature, signature_reason, signature_key,
       forward_status)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertAttempt = db.prepare(
    `insert into attempts (event_id, endpoint_id, attempt, auto_seq, trigger, target_url, state, scheduled_at)
     values (?, ?, 1, 1, 'auto', ?, 'scheduled', ?)`,
  );
  const touchEndpoint = db.prepare(SQLITE_ENDPOINT_COUNTERS);
  const existing = db
    .prepare(`select id from endpoints where id in (select value from json_each(?))`)
    .pluck();
  const batch = db.transaction((items: CapturedEvent[]) => {
    const live = new Set<number>(
      existing.all(JSON.stringify([...new Set(items.map((e) => e.endpointId))])) as number[],
    );
    const ids: StoredIds = [];
    const stored: CapturedEvent[] = [];
    for (const e of items) {
      if (!live.has(e.endpointId)) {
        ids.push(null);
        continue;
      }
      stored.push(e);
      const id = Number(
        insertEvent.run(
          e.endpointId,
          e.userId,
          e.method,
          e.path,
          e.queryString,
          e.headers,
          e.body,
          e.size,
          e.contentType,
          e.sourceIp,
          e.receivedAt,
          e.truncated ? 1 : 0,
          e.signature,
          e.signatureReason,
          e.signatureKey,
          e.forwardStatus,
        ).lastInsertRowid,
      );
      ids.push(id);
      if (e.firstAttemptUrl !== null)
        insertAttempt.run(id, e.endpointId, e.firstAttemptUrl, e.receivedAt);
    }
    for (const [id, { count, last }] of perEndpoint(stored)) touchEndpoint.run({ id, count, last });
    return ids;
  });
  const statements = { batch };
  prepared.set(db, statements);
  return statements;
}

/** Per endpoint: how many events and the latest arrival, in ascending id order. */
function perEndpoint(items: CapturedEvent[]): Array<[number, { count: number; last: number }]> {
  const seen = new Map<number, { count: number; last: number }>();
  for (const e of items) {
    const entry = seen.get(e.endpointId);
    if (entry) {
      entry.count += 1;
      entry.last = Math.max(entry.last, e.receivedAt);
    } else {
      seen.set(e.endpointId, { count: 1, last: e.receivedAt });
    }
  }
  return [...seen].sort((a, b) => a[0] - b[0]);
}

const DEADLOCK_OR_SERIALIZATION = new Set(['40P01', '40001']);

// A statement carries its batch's bodies in one binary parameter (pg sends a Buffer as
// bytes; a bytea[] would travel hex-encoded, twice the size, and be parsed as text).
// Larger batches are split into several statements in one transaction.
const MAX_STATEMENT_BODY_BYTES = 64 * 1024 * 1024;

function splitByBodyBytes(items: CapturedEvent[]): CapturedEvent[][] {
  const groups: CapturedEvent[][] = [];
  let current: CapturedEvent[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length > 0 && bytes + item.body.length > MAX_STATEMENT_BODY_BYTES) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.body.length;
  }
  groups.push(current);
  return groups;
}

async function insertPostgres(
  pool: pg.Pool,
  items: CapturedEvent[],
  notices: readonly PostgresNotice[],
): Promise<StoredIds> {
  const groups = splitByBodyBytes(items);
  const text = await captureStatement(pool);
  for (let attempt = 1; ; attempt++) {
    try {
      if (groups.length === 1) return await insertPostgresStatement(pool, text, items, notices);
      const client = await pool.connect();
      try {
        await client.query('begin');
        const ids: StoredIds = [];
        for (const [i, group] of groups.entries()) {
          const last = i === groups.length - 1;
          ids.push(...(await insertPostgresStatement(client, text, group, last ? notices : [])));
        }
        await client.query('commit');
        return ids;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 3 || !code || !DEADLOCK_OR_SERIALIZATION.has(code)) throw error;
    }
  }
}

/**
 * The capture statement for this database, with the events' id sequence named as a
 * constant: `pg_get_serial_sequence` in the statement ran once per row (a catalog
 * look-up each time), about 2.5 µs of server CPU per captured row.
 */
const statements = new WeakMap<pg.Pool, Promise<string>>();

function captureStatement(pool: pg.Pool): Promise<string> {
  let statement = statements.get(pool);
  if (!statement) {
    statement = pool
      .query<{ sequence: string }>(
        `select quote_literal(pg_get_serial_sequence('events', 'id')) as sequence`,
      )
      .then(({ rows }) => postgresCapture(rows[0]!.sequence));
    // A failed look-up (the database was down) is tried again by the next batch.
    statement.catch(() => statements.delete(pool));
    statements.set(pool, statement);
  }
  return statement;
}

// Ids are drawn from the sequence in batch order, so the answer maps back by position.
// Each endpoint row is locked once, in id order (so batches from several instances cannot
// deadlock), before any event is stored: events of an endpoint deleted meanwhile are
// left out, and a delete waits for this batch to commit (see deleteEndpoint). The lock is
// FOR NO KEY UPDATE, the one the counter update takes anyway: it excludes a delete (FOR
// UPDATE) but not the FOR KEY SHARE a delivery results transaction holds, so a capture
// waits for such a transaction only over its last statement, not its whole length.
const postgresCapture = (sequence: string) => `
  with input as materialized (
    select nextval(${sequence}::regclass) as id, t.*
    from unnest(
      $1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
      $7::integer[], $8::integer[], $9::bigint[], $10::text[], $11::text[], $12::bigint[],
      $13::integer[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[]
    ) with ordinality as t(endpoint_id, user_id, method, path, query_string, headers,
      body_offset, body_length, size,
      content_type, source_ip, received_at, truncated, signature, signature_reason, signature_key,
      forward_status, first_url, ord)
  ),
  counts as (
    select endpoint_id, count(*) as n, max(received_at) as last from input group by endpoint_id
  ),
  locked as materialized (
    select e.id from endpoints e where e.id in (select endpoint_id from counts) order by e.id for no key update
  ),
  inserted as (
    insert into events (id, endpoint_id, user_id, method, path, query_string, headers, body, size,
      content_type, source_ip, received_at, truncated, signature, signature_reason, signature_key,
      forward_status)
    select id, endpoint_id, user_id, method, path, query_string, headers,
      substring($19::bytea from body_offset + 1 for body_length), size,
      content_type, source_ip, received_at, truncated, signature, signature_reason, signature_key,
      forward_status
    from input where endpoint_id in (select id from locked)
  ),
  queued as (
    insert into attempts (event_id, endpoint_id, attempt, auto_seq, trigger, target_url, state, scheduled_at)
    select id, endpoint_id, 1, 1, 'auto', first_url, 'scheduled', received_at
    from input where first_url is not null and endpoint_id in (select id from locked)
  ),
  touched as (
    update endpoints e set
      events_total = e.events_total + c.n,
      last_event_at = greatest(coalesce(e.last_event_at, 0), c.last),
      silence_deadline = case when e.silence_minutes is null then null
        else greatest(coalesce(e.silence_anchor_at, 0), c.last) + cast(e.silence_minutes * 60000000 as bigint) end,
      silence_state = case when e.silence_state = 'alerted' then 'recovering' else e.silence_state end
    from counts c
    where e.id = c.endpoint_id and e.id in (select id from locked)
  ),
  notified as (
    select pg_notify(channel, payload) from unnest($20::text[], $21::text[]) as n(channel, payload)
  )
  -- Only data-modifying CTEs run unreferenced; the count makes the notices go out.
  select id, endpoint_id in (select id from locked) as stored
  from input where (select count(*) from notified) >= 0 order by ord`;

async function insertPostgresStatement(
  db: pg.Pool | pg.PoolClient,
  text: string,
  items: CapturedEvent[],
  notices: readonly PostgresNotice[],
): Promise<StoredIds> {
  const column = <T>(pick: (e: CapturedEvent) => T) => items.map(pick);
  const offsets: number[] = [];
  let offset = 0;
  for (const e of items) {
    offsets.push(offset);
    offset += e.body.length;
  }
  const values = [
    column((e) => e.endpointId),
    column((e) => e.userId),
    column((e) => e.method),
    column((e) => e.path),
    column((e) => e.queryString),
    column((e) => e.headers),
    offsets,
    column((e) => e.body.length),
    column((e) => e.size),
    column((e) => e.contentType),
    column((e) => e.sourceIp),
    column((e) => e.receivedAt),
    column((e) => (e.truncated ? 1 : 0)),
    column((e) => e.signature),
    column((e) => e.signatureReason),
    column((e) => e.signatureKey),
    column((e) => e.forwardStatus),
    column((e) => e.firstAttemptUrl),
    Buffer.concat(items.map((e) => e.body)),
    notices.map((n) => n.channel),
    notices.map((n) => n.payload),
  ];
  // Named, so each connection parses and plans it once: on a small batch, planning this
  // statement cost more server CPU than inserting the rows.
  const result = await db.query<{ id: number; stored: boolean }>({
    name: 'hookwatch_capture_4',
    text,
    values,
  });
  return result.rows.map((r) => (r.stored ? Number(r.id) : null));
}
