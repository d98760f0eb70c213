import { afterAll, beforeAll, expect, it } from 'vitest';
import { retryOffsetMicros } from '../../src/delivery/schedule.js';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';
import { capture, eventDetail, patchEndpoint, runDue, waitFor, waitForAttempt } from './helpers.js';

it('publishes the documented schedule', () => {
  const seconds = [1, 2, 3, 4, 5, 6, 7, 20].map((n) => retryOffsetMicros(n) / 1e6);
  expect(seconds).toEqual([0, 30, 120, 600, 3600, 21_600, 21_600, 21_600]);
});

describeService('retry schedule', { manualClock: true }, (ctx) => {
  let receiver: Receiver;
  let session: Session;

  beforeAll(async () => {
    receiver = await startReceiver();
    session = await signUp(ctx.url);
  });
  afterAll(async () => {
    await receiver.close();
  });

  async function endpointRecord(id: number) {
    return ctx.service.services.store.db
      .selectFrom('endpoints')
      .select(['failing_since', 'failing_state', 'last_delivery_at', 'last_delivery_ok'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  it('retries at each offset from the end of the failed attempt and stops at the 2xx', async () => {
    const clock = ctx.clock!;
    let answered = 0;
    receiver.answer((_request, res) => {
      answered += 1;
      res.writeHead(answered <= 6 ? 503 : 200).end(answered <= 6 ? 'down' : 'ok');
    });
    const endpoint = await createEndpoint(session, 'flaky receiver');
    await patchEndpoint(session, endpoint.id, { forwarding: receiver.url });

    const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{"n":1}') });
    let detail = await waitForAttempt(session, eventId, 1, ['failed']);
    expect(detail.deliveries[0].status_code).toBe(503);
    const firstFailure = clock.nowMicros();
    expect(await endpointRecord(endpoint.id)).toMatchObject({
      failing_since: firstFailure,
      last_delivery_ok: 0,
    });

    const offsetsSeconds = [30, 120, 600, 3600, 21_600, 21_600];
    for (let n = 2; n <= 7; n += 1) {
      detail = await waitFor(async () => {
        const d = await eventDetail(session, eventId);
        return d.deliveries.length === n ? d : undefined;
      }, `attempt ${n} to be scheduled`);
      const previous = detail.deliveries[n - 2];
      const next = detail.deliveries[n - 1];
      expect(next).toMatchObject({ attempt: n, trigger: 'auto', state: 'scheduled' });
      expect(detail.forward_status).toBe('retrying');
      expect(detail.attempts).toBe(n - 1);
      const offsetMs = offsetsSeconds[n - 2]! * 1000;
      expect(Date.parse(next.scheduled_at) - Date.parse(previous.finished_at)).toBe(offsetMs);

      clock.advanceMs(offsetMs - 1);
      await runDue(ctx.service);
      expect(receiver.requests, `attempt ${n} went out early`).toHaveLength(n - 1);

      clock.advanceMs(1);
      await runDue(ctx.service);
      expect(receiver.requests).toHaveLength(n);
      detail = await eventDetail(session, eventId);
      expect(detail.deliveries[n - 1].started_at).toBe(next.scheduled_at);
    }

    expect(detail.forward_status).toBe('delivered');
    expect(detail.attempts).toBe(7);
    expect(detail.deliveries.map((d: any) => d.state)).toEqual([
      ...Array(6).fill('failed'),
      'succeeded',
    ]);
    expect(await endpointRecord(endpoint.id)).toMatchObject({
      failing_since: null,
      last_delivery_ok: 1,
      last_delivery_at: clock.nowMicros(),
    });
    // Every request carried the same event id, so a receiver can de-duplicate.
    expect(new Set(receiver.requests.map((r) => r.header('x-hookwatch-event-id')))).toEqual(
      new Set([String(eventId)]),
    );

    clock.advanceMs(7 * 24 * 3600 * 1000);
    await runDue(ctx.service);
    expect(receiver.requests).toHaveLength(7);
    expect((await eventDetail(session, eventId)).deliveries).toHaveLength(7);
  });

  it('fails a redirect (not followed) and a refused connection, and retries both on schedule', async () => {
    const clock = ctx.clock!;
    const redirecting = await startReceiver({ status: 302, headers: { Location: receiver.url } });
    const endpoint = await createEndpoint(session, 'redirects');
    await patchEndpoint(session, endpoint.id, { forwarding: redirecting.url });
    const before = receiver.requests.length;
    try {
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      let detail = await waitForAttempt(session, eventId, 1, ['failed']);
      expect(detail.deliveries[0].status_code).toBe(302);
      expect(detail.deliveries[0].error).toMatch(/redirect to .* not followed/);
      expect(receiver.requests).toHaveLength(before);

      // The receiver goes away: the next attempt finds the port closed.
      await redirecting.close();
      detail = await waitFor(async () => {
        const d = await eventDetail(session, eventId);
        return d.deliveries.length === 2 ? d : undefined;
      }, 'attempt 2 to be scheduled');
      clock.advanceMs(30_000);
      await runDue(ctx.service);
      detail = await waitForAttempt(session, eventId, 2, ['failed']);
      expect(detail.deliveries[1].status_code).toBeNull();
      expect(detail.deliveries[1].error).toMatch(/^connection refused by 127\.0\.0\.1:\d+$/);
      expect(detail.deliveries[2]).toMatchObject({ attempt: 3, state: 'scheduled' });
    } finally {
      await redirecting.close();
    }
  });
});
