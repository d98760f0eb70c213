import { sql } from 'kysely';
import { type Store, type Tx, type WriteOptions, writeTransaction } from '../db.js';
import type { AttemptTrigger, ForwardStatus } from '../schema.js';
import { recordEndpointOutcomes } from './endpointOutcomes.js';
import { unique } from './shared.js';

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

/**
 * Locks endpoints first in a transaction that will update their attempt rows, so that an
 * endpoint's deletion (FOR UPDATE, then its events and their attempts) waits for the
 * transaction instead of deadlocking with it. FOR KEY SHARE is enough for that, and unlike
 * a stronger lock it lets capture batches update the endpoint's counters meanwhile (until
 * the transaction's own endpoint update at its end): held across a whole results
 * transaction (a round trip per result), FOR NO KEY UPDATE made captures on a busy
 * endpoint wait for several milliseconds. SQLite has one writer: nothing to do.
 */
export async function lockEndpointsAgainstDeletion(
  store: Store,
  trx: Tx,
  endpointIds: number[],
): Promise<void> {
  if (store.dialect !== 'postgres' || endpointIds.length === 0) return;
  await trx
    .selectFrom('endpoints')
    .select('id')
    .where('id', 'in', endpointIds)
    .orderBy('id')
    .forKeyShare()
    .execute();
}

/**
 * Writes each result onto its attempt row, unless its claim was lost (the lease ran out
 * and another worker took the row, which then records it); returns the results written.
 * Rows are locked in id order, as everywhere else. SQLite runs in this process, so a
 * statement per row costs no round trip; PostgreSQL locks and updates the whole batch in
 * two statements, where a round trip per result had bounded deliveries per second.
 */
async function finishAttempts(
  store: Store,
  trx: Tx,
  results: AttemptResult[],
): Promise<AttemptResult[]> {
  const sorted = [...results].sort((a, b) => a.attemptId - b.attemptId);
  if (store.dialect === 'postgres') {
    await sql`select id from attempts where id = any(${sorted.map((r) => r.attemptId)}::bigint[])
      order by id for no key update`.execute(trx);
    const { rows } = await sql<{ id: number }>`update attempts as a set
        state = r.state, target_url = r.target_url, finished_at = r.finished_at,
        duration_ms = r.duration_ms, status_code = r.status_code, error = r.error,
        response_headers = r.response_headers, response_body = r.response_body,
        lease_expires_at = null
      from unnest(
        ${sorted.map((r) => r.attemptId)}::bigint[],
        ${sorted.map((r) => r.claimToken)}::text[],
        ${sorted.map((r) => r.state)}::text[],
        ${sorted.map((r) => r.targetUrl)}::text[],
        ${sorted.map((r) => r.finishedAt)}::bigint[],
        ${sorted.map((r) => r.durationMs)}::integer[],
        ${sorted.map((r) => r.statusCode)}::integer[],
        ${sorted.map((r) => r.error)}::text[],
        ${sorted.map((r) => r.responseHeaders)}::text[],
        ${sorted.map((r) => r.responseBody)}::bytea[]
      ) as r(id, claimed_by, state, target_url, finished_at, duration_ms, status_code, error,
        response_headers, response_body)
      where a.id = r.id and a.state = 'in_flight' and a.claimed_by = r.claimed_by
      returning a.id`.execute(trx);
    const written = new Set(rows.map((row) => Number(row.id)));
    return sorted.filter((r) => written.has(r.attemptId));
  }
  const recorded: AttemptResult[] = [];
  for (const r of sorted) {
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
  return recorded;
}

// Results lost to a power cut leave their attempts claimed (or scheduled): they go out
// again once the lease runs out, and the next attempt is scheduled then (at-least-once,
// DESIGN §5). Any durable commit after this one, a capture's say, makes it durable too.
const RESULTS_TRANSACTION: WriteOptions = { durable: false };

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
  return writeTransaction(
    store,
    async (trx) => {
      const autoEndpoints = unique(
        results.filter((r) => r.trigger === 'auto').map((r) => r.endpointId),
      );
      await lockEndpointsAgainstDeletion(store, trx, autoEndpoints);
      // Events before their attempts, the order in which deleting an event (a retention
      // sweep) takes them through the cascade: attempts first deadlocked with the sweep.
      // Numbering the next attempt and reading the status must not race a replay or a
      // cancel either.
      let statusQuery = trx
        .selectFrom('events')
        .select(['id', 'forward_status'])
        .where('id', 'in', unique(results.map((r) => r.eventId)))
        .orderBy('id');
      if (store.dialect === 'postgres') statusQuery = statusQuery.forNoKeyUpdate();
      const status = new Map<number, ForwardStatus | null>(
        (await statusQuery.execute()).map((e) => [e.id, e.forward_status]),
      );

      const recorded = await finishAttempts(store, trx, results);

      const auto = recorded.filter((r) => r.trigger === 'auto');
      const nextByAttempt = new Map<number, RecordedResult['next']>();
      if (auto.length > 0) {
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
    },
    RESULTS_TRANSACTION,
  );
}
