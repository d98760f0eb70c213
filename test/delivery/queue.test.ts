import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect, it } from 'vitest';
import { retryOffsetMicros } from '../../src/delivery/schedule.js';
import {
  type AttemptResult,
  type ClaimedAttempt,
  cancelEventRetries,
  claimDueAttempts,
  dueQueueStats,
  insertReplayAttempt,
  recordAttemptResults,
  releaseExpiredLeases,
} from '../../src/store/attempts/index.js';
import { applyEndpointChanges } from '../../src/endpoints/update.js';
import { openBus } from '../../src/store/bus.js';
import { insertCapturedEvents } from '../../src/store/capture.js';
import { deleteEventsBefore } from '../../src/store/retention.js';
import { type Store, openStore } from '../../src/store/db.js';
import { createEndpoint, deleteEndpoint, updateEndpoint } from '../../src/store/endpoints.js';
import { createUser } from '../../src/store/users.js';
import { describeEachDialect } from '../helpers/db.js';
import { capturedEvent, storedIds } from '../helpers/events.js';

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0) * 1000;
const LEASE = 120_000_000;

async function forwardingEndpoint(store: Store, url = 'http://receiver.test/hook') {
  const user = await createUser(store, {
    email: `q-${randomBytes(4).toString('hex')}@example.com`,
    passwordHash: 'x',
    plan: 'free',
    now: T0,
  });
  const endpoint = await createEndpoint(store, {
    userId: user!.id,
    name: 'queue',
    token: randomBytes(12).toString('hex'),
    now: T0,
  });
  await updateEndpoint(store.db, user!.id, endpoint.id, { forwarding_url: url });
  return { userId: user!.id, endpointId: endpoint.id };
}

async function captureEvents(
  store: Store,
  target: { userId: number; endpointId: number },
  count: number,
  receivedAt = T0,
): Promise<number[]> {
  const items = Array.from({ length: count }, (_, i) =>
    capturedEvent(target.endpointId, target.userId, receivedAt, `{"i":${i}}`, {
      headers: '[]',
      contentType: 'application/json',
      forwardStatus: 'pending',
      firstAttemptUrl: 'http://receiver.test/hook',
    }),
  );
  return storedIds(await insertCapturedEvents(store, items));
}

function resultOf(
  claim: ClaimedAttempt,
  state: 'succeeded' | 'failed',
  finishedAt: number,
): AttemptResult {
  return {
    attemptId: claim.row.id,
    claimToken: claim.row.claimed_by!,
    eventId: claim.row.event_id,
    endpointId: claim.row.endpoint_id,
    trigger: claim.row.trigger,
    autoSeq: claim.row.auto_seq,
    state,
    targetUrl: 'http://receiver.test/hook',
    finishedAt,
    durationMs: 3,
    statusCode: state === 'succeeded' ? 200 : 500,
    error: null,
    responseHeaders: '[]',
    responseBody: Buffer.from('ok'),
  };
}

async function eventRow(store: Store, id: number) {
  return store.db
    .selectFrom('events')
    .select(['forward_status', 'attempts_started'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Until a backend of this database waits on a lock (for at most 5 s). */
async function untilSomeoneWaitsOnALock(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Locks events as a results transaction does, in id order, while `start` runs beside it:
 * holds the lowest, starts the other side, waits until it waits on that lock, then locks
 * the rest. Had the other side taken any of the rest before the lowest, this closes a
 * cycle and PostgreSQL aborts one side with "deadlock detected". Returns what `start` did.
 */
async function lockInIdOrderBeside<T>(
  databaseUrl: string,
  ids: number[],
  start: () => Promise<T>,
): Promise<T> {
  const [lowest, ...rest] = ids;
  const recorder = new pg.Client({ connectionString: databaseUrl });
  await recorder.connect();
  try {
    await recorder.query('begin');
    await recorder.query('select id from events where id = $1 for no key update', [lowest]);
    const started = start();
    await untilSomeoneWaitsOnALock(recorder);
    await recorder.query(
      'select id from events where id = any($1::bigint[]) order by id for no key update',
      [rest],
    );
    await recorder.query('commit');
    return await started;
  } finally {
    await recorder.end();
  }
}

describeEachDialect('attempt queue', (ctx) => {
  it('never hands the same attempt to two claimers at once', async () => {
    const target = await forwardingEndpoint(ctx.store);
    const ids = await captureEvents(ctx.store, target, 300);
    // PostgreSQL: a second pool, as another instance would have. SQLite mode is one
    // process, and two connections in one thread would wait on each other's lock.
    const second = ctx.dialect === 'postgres' ? openStore(ctx.database.url) : ctx.store;
    try {
      const claims: ClaimedAttempt[][] = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (async () => {
            const mine: ClaimedAttempt[] = [];
            for (;;) {
              const got = await claimDueAttempts(i % 2 === 0 ? ctx.store : second, {
                now: T0,
                leaseMicros: LEASE,
                claimToken: `claimer-${i}-${mine.length}`,
                limit: 16,
              });
              if (got.length === 0) return mine;
              mine.push(...got);
            }
          })(),
        ),
      );
      const claimed = claims.flat().filter((c) => ids.includes(c.row.event_id));
      expect(claimed).toHaveLength(300);
      expect(new Set(claimed.map((c) => c.row.id)).size).toBe(300);
      expect(claimed.every((c) => c.row.state === 'in_flight')).toBe(true);
      expect(claims.filter((c) => c.length > 0).length).toBeGreaterThan(1);
      expect(await eventRow(ctx.store, ids[0]!)).toEqual({
        forward_status: 'pending',
        attempts_started: 1,
      });
    } finally {
      if (second !== ctx.store) await second.close();
    }
  });

  it('returns an attempt whose lease ran out to the queue and drops the lost claim', async () => {
    const target = await forwardingEndpoint(ctx.store);
    const [eventId] = await captureEvents(ctx.store, target, 1, T0 + 1);
    const [first] = (
      await claimDueAttempts(ctx.store, {
        now: T0 + 1,
        leaseMicros: LEASE,
        claimToken: 'dead-worker',
        limit: 500,
      })
    ).filter((c) => c.row.event_id === eventId);
    expect(first).toBeDefined();

    expect(await releaseExpiredLeases(ctx.store, T0 + LEASE)).toEqual([]);
    const released = await releaseExpiredLeases(ctx.store, T0 + LEASE + 2);
    expect(released.map((r) => r.event_id)).toContain(eventId);
    expect(await eventRow(ctx.store, eventId!)).toEqual({
      forward_status: 'pending',
      attempts_started: 0,
    });

    const [again] = (
      await claimDueAttempts(ctx.store, {
        now: T0 + LEASE + 2,
        leaseMicros: LEASE,
        claimToken: 'live-worker',
        limit: 500,
      })
    ).filter((c) => c.row.event_id === eventId);
    expect(again!.row.id).toBe(first!.row.id);

    // The dead worker's late answer does not count; the live one's does.
    expect(
      await recordAttemptResults(
        ctx.store,
        [resultOf(first!, 'failed', T0 + LEASE + 5)],
        retryOffsetMicros,
      ),
    ).toEqual([]);
    const recorded = await recordAttemptResults(
      ctx.store,
      [resultOf(again!, 'succeeded', T0 + LEASE + 6)],
      retryOffsetMicros,
    );
    expect(recorded).toHaveLength(1);
    expect(await eventRow(ctx.store, eventId!)).toEqual({
      forward_status: 'delivered',
      attempts_started: 1,
    });
  });

  it('records a batch of results in one go, each exactly, skipping a lost claim', async () => {
    const target = await forwardingEndpoint(ctx.store);
    const ids = await captureEvents(ctx.store, target, 3, T0 + 7);
    const claimed = (
      await claimDueAttempts(ctx.store, {
        now: T0 + 7,
        leaseMicros: LEASE,
        claimToken: 'batch-worker',
        limit: 500,
      })
    ).filter((c) => ids.includes(c.row.event_id));
    expect(claimed).toHaveLength(3);
    const [ok, failed, lost] = claimed as [ClaimedAttempt, ClaimedAttempt, ClaimedAttempt];
    const body = Buffer.from([0, 0xff, 0x80, 0x0a, 0x5c, 0x22]);
    const results = [
      {
        ...resultOf(ok, 'succeeded', T0 + 20),
        durationMs: 12,
        statusCode: 204,
        responseHeaders: '[["X-A","1"],["x-a","2"]]',
        responseBody: body,
      },
      {
        ...resultOf(failed, 'failed', T0 + 21),
        targetUrl: 'http://receiver.test/other?x=1',
        statusCode: null,
        error: 'connect ECONNREFUSED "quoted", {braced}',
        responseHeaders: null,
        responseBody: null,
      },
      { ...resultOf(lost, 'succeeded', T0 + 22), claimToken: 'someone-else' },
    ];
    // Out of order on purpose: rows are locked and written in id order whatever comes in.
    const recorded = await recordAttemptResults(ctx.store, results.reverse(), retryOffsetMicros);
    expect(recorded.map((r) => r.result.attemptId).sort((a, b) => a - b)).toEqual(
      [ok.row.id, failed.row.id].sort((a, b) => a - b),
    );

    const rows = await ctx.store.db
      .selectFrom('attempts')
      .select([
        'id',
        'state',
        'target_url',
        'finished_at',
        'duration_ms',
        'status_code',
        'error',
        'response_headers',
        'response_body',
        'lease_expires_at',
      ])
      .where('id', 'in', [ok.row.id, failed.row.id, lost.row.id])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(ok.row.id)).toMatchObject({
      state: 'succeeded',
      target_url: 'http://receiver.test/hook',
      finished_at: T0 + 20,
      duration_ms: 12,
      status_code: 204,
      error: null,
      response_headers: '[["X-A","1"],["x-a","2"]]',
      lease_expires_at: null,
    });
    expect(Buffer.from(byId.get(ok.row.id)!.response_body!)).toEqual(body);
    expect(byId.get(failed.row.id)).toMatchObject({
      state: 'failed',
      target_url: 'http://receiver.test/other?x=1',
      finished_at: T0 + 21,
      status_code: null,
      error: 'connect ECONNREFUSED "quoted", {braced}',
      response_headers: null,
      response_body: null,
      lease_expires_at: null,
    });
    // The lost claim's row is untouched: still out under its own claim.
    expect(byId.get(lost.row.id)).toMatchObject({ state: 'in_flight', finished_at: null });
    expect(recorded.find((r) => r.result.attemptId === failed.row.id)?.next).toMatchObject({
      attempt: 2,
    });
  });

  it('records results beside an event being deleted without a deadlock', async () => {
    // PostgreSQL only: SQLite has one writer, so nothing there can wait on anything.
    if (ctx.dialect !== 'postgres') return;
    const target = await forwardingEndpoint(ctx.store);
    const [eventId] = await captureEvents(ctx.store, target, 1, T0 + 9);
    const [claim] = (
      await claimDueAttempts(ctx.store, {
        now: T0 + 9,
        leaseMicros: LEASE,
        claimToken: 'deadlock-worker',
        limit: 500,
      })
    ).filter((c) => c.row.event_id === eventId);

    // A deletion as a retention sweep makes it: the event row first, then (the cascade)
    // its attempts. Here it holds the event while the results are being recorded.
    const deleter = new pg.Client({ connectionString: ctx.database.url });
    await deleter.connect();
    try {
      await deleter.query('begin');
      await deleter.query('select id from events where id = $1 for update', [eventId]);
      const recording = recordAttemptResults(
        ctx.store,
        [resultOf(claim!, 'failed', T0 + 10)],
        retryOffsetMicros,
      );
      // Until the recording waits on a lock: had it taken the attempt before the event,
      // the deletion below would close a cycle, and PostgreSQL would abort one side.
      await untilSomeoneWaitsOnALock(deleter);
      await deleter.query('delete from events where id = $1', [eventId]);
      await deleter.query('commit');
      // The attempt went with its event: nothing to record, nothing scheduled.
      expect(await recording).toEqual([]);
    } finally {
      await deleter.end();
    }
  });

  it('turns forwarding off beside results being recorded without a deadlock', async () => {
    // PostgreSQL only: SQLite has one writer, so nothing there can wait on anything.
    if (ctx.dialect !== 'postgres') return;
    const target = await forwardingEndpoint(ctx.store);
    const [eventId] = await captureEvents(ctx.store, target, 1, T0 + 11);

    // A results transaction, step by step as recordAttemptResults takes its locks: the
    // endpoint FOR KEY SHARE, then the event; once the forwarding change waits on a lock,
    // it goes on to update the endpoint (the forwarding-failing record) and commits.
    const bus = await openBus(ctx.store, () => {});
    const recorder = new pg.Client({ connectionString: ctx.database.url });
    await recorder.connect();
    try {
      await recorder.query('begin');
      await recorder.query('select id from endpoints where id = $1 for key share', [
        target.endpointId,
      ]);
      await recorder.query('select id from events where id = $1 for no key update', [eventId]);
      const turningOff = applyEndpointChanges(
        { store: ctx.store, bus, now: T0 + 12, secretRotationHours: 24 },
        target.userId,
        target.endpointId,
        { forwarding: null },
      );
      await untilSomeoneWaitsOnALock(recorder);
      // Had the change updated the endpoint before locking its events, this would close a
      // cycle, and PostgreSQL would abort one side with "deadlock detected".
      await recorder.query('update endpoints set last_delivery_at = $2 where id = $1', [
        target.endpointId,
        T0 + 12,
      ]);
      await recorder.query('commit');
      expect((await turningOff)?.forwarding_url).toBeNull();
      expect(await eventRow(ctx.store, eventId!)).toMatchObject({ forward_status: 'cancelled' });
    } finally {
      await recorder.end();
      await bus.close();
    }
  });

  it('sweeps old events beside results being recorded without a deadlock', async () => {
    // PostgreSQL only: SQLite has one writer, so nothing there can wait on anything.
    if (ctx.dialect !== 'postgres') return;
    const target = await forwardingEndpoint(ctx.store);
    // Each later id arrived earlier: arrival order and id order disagree. Long before
    // every other test's events, so the sweep below takes these alone.
    const longAgo = T0 - 86_400_000_000;
    const ids: number[] = [];
    for (let i = 0; i < 20; i++)
      ids.push(...(await captureEvents(ctx.store, target, 1, longAgo + 100 - i)));
    // A results transaction locks its events in id order.
    const swept = await lockInIdOrderBeside(ctx.database.url, ids, () =>
      deleteEventsBefore(ctx.store, longAgo + 1000, 1000),
    );
    expect(swept).toBe(20);
  });

  it('deletes an endpoint beside replay results being recorded without a deadlock', async () => {
    // PostgreSQL only: SQLite has one writer, so nothing there can wait on anything.
    if (ctx.dialect !== 'postgres') return;
    const target = await forwardingEndpoint(ctx.store);
    // Each later id arrived earlier: the endpoint's index lists them highest id first.
    const ids: number[] = [];
    for (let i = 0; i < 20; i++)
      ids.push(...(await captureEvents(ctx.store, target, 1, T0 + 100 - i)));
    // A results transaction of replays alone locks no endpoint, only its events in id
    // order.
    const deleted = await lockInIdOrderBeside(ctx.database.url, ids, () =>
      deleteEndpoint(ctx.store, target.userId, target.endpointId),
    );
    expect(deleted).toBe(true);
    const left = await ctx.store.db
      .selectFrom('events')
      .select('id')
      .where('endpoint_id', '=', target.endpointId)
      .execute();
    expect(left).toEqual([]);
  });

  it('holds automatic attempts of paused endpoints but not replays', async () => {
    const target = await forwardingEndpoint(ctx.store);
    const [eventId] = await captureEvents(ctx.store, target, 1, T0 + 2);
    await updateEndpoint(ctx.store.db, target.userId, target.endpointId, { is_active: 0 });
    const replay = await insertReplayAttempt(ctx.store, {
      eventId: eventId!,
      endpointId: target.endpointId,
      targetUrl: 'http://elsewhere.test/',
      now: T0 + 3,
    });
    expect(replay.attempt).toBe(2);
    const claimed = (
      await claimDueAttempts(ctx.store, {
        now: T0 + 10,
        leaseMicros: LEASE,
        claimToken: 'paused-check',
        limit: 500,
      })
    ).filter((c) => c.row.event_id === eventId);
    expect(claimed.map((c) => c.row.trigger)).toEqual(['replay']);
    expect(await eventRow(ctx.store, eventId!)).toEqual({
      forward_status: 'pending',
      attempts_started: 1,
    });
  });

  it('schedules the next attempt after a failure and none after a cancel', async () => {
    const target = await forwardingEndpoint(ctx.store);
    const [eventId] = await captureEvents(ctx.store, target, 1, T0 + 4);
    const claim = async (now: number) =>
      (
        await claimDueAttempts(ctx.store, {
          now,
          leaseMicros: LEASE,
          claimToken: `c-${now}`,
          limit: 500,
        })
      ).find((c) => c.row.event_id === eventId);

    const first = await claim(T0 + 4);
    const [recorded] = await recordAttemptResults(
      ctx.store,
      [resultOf(first!, 'failed', T0 + 1000)],
      retryOffsetMicros,
    );
    expect(recorded!.next).toMatchObject({ attempt: 2, scheduledAt: T0 + 1000 + 30_000_000 });
    expect(await claim(T0 + 1000 + 29_999_999)).toBeUndefined();
    const second = await claim(T0 + 1000 + 30_000_000);
    expect(second!.row).toMatchObject({ attempt: 2, auto_seq: 2 });

    expect(await cancelEventRetries(ctx.store, eventId!)).toBe(0); // attempt 2 is in flight
    const [late] = await recordAttemptResults(
      ctx.store,
      [resultOf(second!, 'failed', T0 + 40_000_000)],
      retryOffsetMicros,
    );
    expect(late!.next).toBeNull();
    expect(await eventRow(ctx.store, eventId!)).toEqual({
      forward_status: 'cancelled',
      attempts_started: 2,
    });
  });

  it('counts due attempts and the age of the oldest', async () => {
    const target = await forwardingEndpoint(ctx.store, 'http://stats.test/');
    const before = await dueQueueStats(ctx.store, T0 - 1);
    await captureEvents(ctx.store, target, 3, T0 - 5_000_000);
    const stats = await dueQueueStats(ctx.store, T0);
    expect(stats.due - (await dueQueueStats(ctx.store, T0 - 5_000_001)).due).toBeGreaterThanOrEqual(
      3,
    );
    expect(stats.oldestScheduledAt).toBeLessThanOrEqual(T0 - 5_000_000);
    expect(before.due).toBeGreaterThanOrEqual(0);
  });
});
