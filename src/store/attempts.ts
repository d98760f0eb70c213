import { type Selectable, sql } from 'kysely';
import { type Db, type Store, writeTransaction } from './db.js';
import type { AttemptTrigger, DbAttempt, DbEvent, ForwardStatus } from './schema.js';

// The attempt queue (DESIGN §5): the `attempts` table is the queue. Rows move
// scheduled → in_flight (claimed under a lease) → succeeded | failed, or cancelled; a
// failed automatic attempt inserts the next row. Lock order on PostgreSQL, the same in
// every transaction here and in endpoint updates, so none can deadlock another:
// endpoints → attempts → events.

export type AttemptRow = Selectable<DbAttempt>;

/** Attempts that count toward `events.attempts_started`: every row that has started. */
function recountStarted(db: Db, eventIds: number[]) {
  return db
    .updateTable('events')
    .set({
      attempts_started: sql<number>`(select count(*) from attempts
        where attempts.event_id = events.id and attempts.started_at is not null)`,
    })
    .where('id', 'in', eventIds)
    .execute();
}

function unique(values: number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

/**
 * Forwarding turned off (DESIGN §5): scheduled automatic attempts of the endpoint are
 * cancelled and its undelivered events marked `cancelled` (a replay the user asked for
 * still goes out). Takes the database or a transaction.
 */
export async function cancelScheduledForEndpoint(db: Db, endpointId: number): Promise<number> {
  const result = await db
    .updateTable('attempts')
    .set({ state: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'scheduled')
    .where('trigger', '=', 'auto')
    .executeTakeFirst();
  await db
    .updateTable('events')
    .set({ forward_status: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('forward_status', 'in', ['pending', 'retrying'])
    .execute();
  return Number(result.numUpdatedRows);
}

// ---------------------------------------------------------------------------- claim

export interface ClaimCandidate {
  id: number;
  endpoint_id: number;
  trigger: AttemptTrigger;
  target_url: string | null;
  /** The endpoint's forwarding URL now: automatic attempts go to it (DESIGN §5). */
  forwarding_url: string | null;
}

export interface ClaimOptions {
  now: number;
  leaseMicros: number;
  /** Unique per claim: finishing or handing back is guarded by it. */
  claimToken: string;
  /** How many due rows to look at. */
  limit: number;
  /** Endpoints whose destination is saturated here: their automatic attempts wait. */
  skipEndpoints?: readonly number[];
  /** Picks which of the locked candidates to take (per-host caps); default all. */
  choose?: (candidates: ClaimCandidate[]) => number[];
}

export interface ClaimedAttempt {
  row: AttemptRow;
  forwardingUrl: string | null;
}

/**
 * Claims due attempts under a lease. Due means: scheduled, `scheduled_at` reached, and
 * either a replay (it goes out even while paused) or an automatic attempt of an active
 * endpoint that still forwards, for an event still pending or retrying. PostgreSQL
 * locks the candidates with SKIP LOCKED, so instances claim disjoint rows without
 * waiting on each other; SQLite's write transaction is already exclusive, and the
 * update is guarded by `state = 'scheduled'` either way.
 */
export async function claimDueAttempts(
  store: Store,
  options: ClaimOptions,
): Promise<ClaimedAttempt[]> {
  const { now, limit } = options;
  if (limit <= 0) return [];
  return writeTransaction(store, async (trx) => {
    let query = trx
      .selectFrom('attempts as a')
      .innerJoin('endpoints as en', 'en.id', 'a.endpoint_id')
      .innerJoin('events as ev', 'ev.id', 'a.event_id')
      .select(['a.id', 'a.endpoint_id', 'a.trigger', 'a.target_url', 'en.forwarding_url'])
      .where('a.state', '=', 'scheduled')
      .where('a.scheduled_at', '<=', now)
      .where((eb) =>
        eb.or([
          eb('a.trigger', '=', 'replay'),
          eb.and([
            eb('en.is_active', '=', 1),
            eb('en.forwarding_url', 'is not', null),
            eb('ev.forward_status', 'in', ['pending', 'retrying']),
          ]),
        ]),
      );
    const skip = options.skipEndpoints ?? [];
    if (skip.length > 0) {
      query = query.where((eb) =>
        eb.or([eb('a.trigger', '=', 'replay'), eb('a.endpoint_id', 'not in', [...skip])]),
      );
    }
    query = query.orderBy('a.scheduled_at').limit(limit);
    if (store.dialect === 'postgres') {
      // The due rows must be read in index order and the scan stop at `limit`. A queue
      // table grows and drains faster than statistics follow, and with stale ones the
      // planner sorts every due row instead (measured: 18 ms a claim at a backlog of
      // 5,000 instead of 0.1 ms), so the sorted index path is made the only choice.
      await sql`set local enable_bitmapscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
      // The event row is locked too: claiming updates its counter, and a cancel that
      // holds it must not be waited on here (it is skipped until the next pass).
      query = query.forNoKeyUpdate(['a', 'ev']).skipLocked();
    }
    const candidates = (await query.execute()) as ClaimCandidate[];
    if (candidates.length === 0) return [];
    const ids = options.choose ? options.choose(candidates) : candidates.map((c) => c.id);
    if (ids.length === 0) return [];

    const rows = await trx
      .updateTable('attempts')
      .set({
        state: 'in_flight',
        started_at: now,
        lease_expires_at: now + options.leaseMicros,
        claimed_by: options.claimToken,
      })
      .where('id', 'in', ids)
      .where('state', '=', 'scheduled')
      .returningAll()
      .execute();
    if (rows.length === 0) return [];
    await recountStarted(trx, unique(rows.map((r) => r.event_id)));
    const forwarding = new Map(candidates.map((c) => [c.id, c.forwarding_url]));
    return rows
      .sort((a, b) => a.scheduled_at - b.scheduled_at || a.id - b.id)
      .map((row) => ({ row, forwardingUrl: forwarding.get(row.id) ?? null }));
  });
}

export type DeliveryPayload = Pick<
  Selectable<DbEvent>,
  'id' | 'method' | 'path' | 'query_string' | 'headers' | 'body'
>;

/** What a claimed attempt sends: read after the claim committed (events never change). */
export async function loadDeliveryPayloads(
  store: Store,
  eventIds: number[],
): Promise<Map<number, DeliveryPayload>> {
  if (eventIds.length === 0) return new Map();
  const rows = await store.db
    .selectFrom('events')
    .select(['id', 'method', 'path', 'query_string', 'headers', 'body'])
    .where('id', 'in', unique(eventIds))
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

// --------------------------------------------------------------------------- record

export interface AttemptResult {
  attemptId: number;
  claimToken: string;
  eventId: number;
  endpointId: number;
  trigger: AttemptTrigger;
  autoSeq: number | null;
  state: 'succeeded' | 'failed';
  /** Where it actually went: an automatic attempt follows a changed forwarding URL. */
  targetUrl: string;
  finishedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** JSON text: [[name, value], …]. */
  responseHeaders: string | null;
  responseBody: Buffer | null;
}

export interface RecordedResult {
  result: AttemptResult;
  /** The automatic attempt scheduled after this failure, if any. */
  next: { id: number; attempt: number; scheduledAt: number } | null;
}

interface EndpointOutcomes {
  lastAt: number;
  lastOk: boolean;
  sawSuccess: boolean;
  /** The first failure after the last success (or of the batch, without a success). */
  failingFrom: number | null;
}

function foldEndpointOutcomes(results: AttemptResult[]): Map<number, EndpointOutcomes> {
  const byEndpoint = new Map<number, EndpointOutcomes>();
  for (const r of [...results].sort((a, b) => a.finishedAt - b.finishedAt)) {
    const ok = r.state === 'succeeded';
    const seen = byEndpoint.get(r.endpointId) ?? {
      lastAt: r.finishedAt,
      lastOk: ok,
      sawSuccess: false,
      failingFrom: null,
    };
    seen.lastAt = r.finishedAt;
    seen.lastOk = ok;
    if (ok) {
      seen.sawSuccess = true;
      seen.failingFrom = null;
    } else {
      seen.failingFrom ??= r.finishedAt;
    }
    byEndpoint.set(r.endpointId, seen);
  }
  return byEndpoint;
}

/**
 * Records finished attempts in one transaction (a batch, so the commit is paid once):
 * the attempt row, the event's `forward_status`, the next automatic attempt after a
 * failure (`nextOffset(autoSeq)` from the end of this one), and the endpoint's
 * forwarding-failing record (DESIGN §5/§6). A result whose claim was lost (its lease
 * ran out and another worker took the row) is dropped: that worker records it.
 */
export async function recordAttemptResults(
  store: Store,
  results: AttemptResult[],
  nextOffset: (autoSeq: number) => number,
): Promise<RecordedResult[]> {
  if (results.length === 0) return [];
  return writeTransaction(store, async (trx) => {
    const autoEndpoints = unique(
      results.filter((r) => r.trigger === 'auto').map((r) => r.endpointId),
    );
    if (store.dialect === 'postgres' && autoEndpoints.length > 0) {
      await trx
        .selectFrom('endpoints')
        .select('id')
        .where('id', 'in', autoEndpoints)
        .orderBy('id')
        .forNoKeyUpdate()
        .execute();
    }

    const recorded: AttemptResult[] = [];
    for (const r of [...results].sort((a, b) => a.attemptId - b.attemptId)) {
      const updated = await trx
        .updateTable('attempts')
        .set({
          state: r.state,
          target_url: r.targetUrl,
          finished_at: r.finishedAt,
          duration_ms: r.durationMs,
          status_code: r.statusCode,
          error: r.error,
          response_headers: r.responseHeaders,
          response_body: r.responseBody,
          lease_expires_at: null,
        })
        .where('id', '=', r.attemptId)
        .where('state', '=', 'in_flight')
        .where('claimed_by', '=', r.claimToken)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 1) recorded.push(r);
    }

    const auto = recorded.filter((r) => r.trigger === 'auto');
    const nextByAttempt = new Map<number, RecordedResult['next']>();
    if (auto.length > 0) {
      const eventIds = unique(auto.map((r) => r.eventId));
      let statusQuery = trx
        .selectFrom('events')
        .select(['id', 'forward_status'])
        .where('id', 'in', eventIds)
        .orderBy('id');
      // Numbering the next attempt and reading the status must not race a replay or a cancel.
      if (store.dialect === 'postgres') statusQuery = statusQuery.forNoKeyUpdate();
      const status = new Map<number, ForwardStatus | null>(
        (await statusQuery.execute()).map((e) => [e.id, e.forward_status]),
      );
      const delivered: number[] = [];
      const retrying: number[] = [];
      for (const r of auto) {
        if (r.state === 'succeeded') {
          delivered.push(r.eventId);
          status.set(r.eventId, 'delivered');
          continue;
        }
        const current = status.get(r.eventId);
        // Cancelled (or delivered by an overlapping attempt) while this one was out.
        if (current !== 'pending' && current !== 'retrying') continue;
        const last = await trx
          .selectFrom('attempts')
          .select((eb) => eb.fn.max('attempt').as('n'))
          .where('event_id', '=', r.eventId)
          .executeTakeFirst();
        const autoSeq = (r.autoSeq ?? 1) + 1;
        const scheduledAt = r.finishedAt + nextOffset(autoSeq);
        const attempt = Number(last?.n ?? 0) + 1;
        const inserted = await trx
          .insertInto('attempts')
          .values({
            event_id: r.eventId,
            endpoint_id: r.endpointId,
            attempt,
            auto_seq: autoSeq,
            trigger: 'auto',
            target_url: r.targetUrl,
            state: 'scheduled',
            scheduled_at: scheduledAt,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        nextByAttempt.set(r.attemptId, { id: inserted.id, attempt, scheduledAt });
        retrying.push(r.eventId);
        status.set(r.eventId, 'retrying');
      }
      if (delivered.length > 0) {
        await trx
          .updateTable('events')
          .set({ forward_status: 'delivered' })
          .where('id', 'in', unique(delivered))
          .execute();
      }
      if (retrying.length > 0) {
        await trx
          .updateTable('events')
          .set({ forward_status: 'retrying' })
          .where('id', 'in', unique(retrying))
          .where('forward_status', '=', 'pending')
          .execute();
      }
      await recordEndpointOutcomes(trx, auto);
    }
    return recorded.map((result) => ({
      result,
      next: nextByAttempt.get(result.attemptId) ?? null,
    }));
  });
}

/**
 * The forwarding-failing record the alerts worker reads: since when automatic
 * deliveries have failed without a success, and the last delivery's time and outcome.
 * A success after an alert moves `failing_state` to `recovering` (the alerts worker
 * sends the recovered notice).
 */
async function recordEndpointOutcomes(db: Db, auto: AttemptResult[]): Promise<void> {
  const folded = [...foldEndpointOutcomes(auto)].sort((a, b) => a[0] - b[0]);
  for (const [endpointId, o] of folded) {
    await db
      .updateTable('endpoints')
      .set({
        last_delivery_at: o.lastAt,
        last_delivery_ok: o.lastOk ? 1 : 0,
        failing_since: o.lastOk
          ? null
          : o.sawSuccess
            ? o.failingFrom
            : sql<number>`coalesce(failing_since, ${o.failingFrom})`,
        ...(o.sawSuccess
          ? {
              failing_state: sql<
                'ok' | 'alerted' | 'recovering'
              >`case when failing_state = 'alerted'
                then 'recovering' else failing_state end`,
            }
          : {}),
      })
      .where('id', '=', endpointId)
      .execute();
  }
}

// ------------------------------------------------------------------ leases, hand-back

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
      .selectFrom('attempts')
      .select('id')
      .where('state', '=', 'in_flight')
      .where('lease_expires_at', '<', now)
      .orderBy('id')
      .limit(500);
    if (store.dialect === 'postgres') expired = expired.forNoKeyUpdate().skipLocked();
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

// ------------------------------------------------------------------- replay, cancel

async function lockEvent(store: Store, db: Db, eventId: number): Promise<ForwardStatus | null> {
  let query = db.selectFrom('events').select('forward_status').where('id', '=', eventId);
  if (store.dialect === 'postgres') query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  return row?.forward_status ?? null;
}

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

// ---------------------------------------------------------------------- queue state

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
