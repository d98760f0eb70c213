import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';
import { capture, eventDetail, patchEndpoint, runDue, waitFor, waitForAttempt } from './helpers.js';

describeService('delivery control', { manualClock: true }, (ctx) => {
  let failing: Receiver;
  let healthy: Receiver;
  let session: Session;

  beforeAll(async () => {
    failing = await startReceiver({ status: 500, body: 'down' });
    healthy = await startReceiver();
    session = await signUp(ctx.url);
  });
  afterAll(async () => {
    await failing.close();
    await healthy.close();
  });

  /** An endpoint forwarding to `url` with one event whose attempt 1 has failed. */
  async function retryingEvent(name: string, rest = '') {
    const endpoint = await createEndpoint(session, name);
    await patchEndpoint(session, endpoint.id, { forwarding: `${failing.url}/in` });
    const eventId = await capture(ctx.url, endpoint.token, { rest, body: Buffer.from('{}') });
    await waitForAttempt(session, eventId, 1, ['failed']);
    const detail = await waitFor(async () => {
      const d = await eventDetail(session, eventId);
      return d.deliveries.length === 2 ? d : undefined;
    }, 'attempt 2 to be scheduled');
    expect(detail.forward_status).toBe('retrying');
    return { endpoint, eventId };
  }

  const countFor = (receiver: Receiver, eventId: number) =>
    receiver.requests.filter((r) => r.header('x-hookwatch-event-id') === String(eventId)).length;

  it('holds attempts while paused and sends the due ones at once on resume', async () => {
    const endpoint = await createEndpoint(session, 'paused');
    await patchEndpoint(session, endpoint.id, { forwarding: healthy.url, is_active: false });
    const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
    await runDue(ctx.service);
    ctx.clock!.advanceMs(3600_000);
    await runDue(ctx.service);
    let detail = await eventDetail(session, eventId);
    expect(detail.forward_status).toBe('pending');
    expect(detail.deliveries).toMatchObject([{ attempt: 1, state: 'scheduled' }]);
    expect(detail.attempts).toBe(0);
    expect(countFor(healthy, eventId)).toBe(0);

    // Resuming publishes endpoint_changed, which wakes the worker: no clock move needed.
    await patchEndpoint(session, endpoint.id, { is_active: true });
    detail = await waitForAttempt(session, eventId, 1, ['succeeded']);
    expect(detail.forward_status).toBe('delivered');
    expect(countFor(healthy, eventId)).toBe(1);
  });

  it('holds a retry due during a pause until the endpoint resumes', async () => {
    const { endpoint, eventId } = await retryingEvent('paused mid-retry');
    await patchEndpoint(session, endpoint.id, { is_active: false });
    ctx.clock!.advanceMs(30_000);
    await runDue(ctx.service);
    expect(countFor(failing, eventId)).toBe(1);
    await patchEndpoint(session, endpoint.id, { is_active: true });
    await waitForAttempt(session, eventId, 2, ['failed']);
    expect(countFor(failing, eventId)).toBe(2);
  });

  it('cancels scheduled attempts when forwarding is turned off, for good', async () => {
    const { endpoint, eventId } = await retryingEvent('forwarding off');
    await patchEndpoint(session, endpoint.id, { forwarding: null });
    let detail = await eventDetail(session, eventId);
    expect(detail.forward_status).toBe('cancelled');
    expect(detail.deliveries.map((d: any) => d.state)).toEqual(['failed', 'cancelled']);

    await patchEndpoint(session, endpoint.id, { forwarding: healthy.url });
    ctx.clock!.advanceMs(24 * 3600_000);
    await runDue(ctx.service);
    detail = await eventDetail(session, eventId);
    expect(detail.deliveries.map((d: any) => d.state)).toEqual(['failed', 'cancelled']);
    expect(countFor(failing, eventId) + countFor(healthy, eventId)).toBe(1);
  });

  it('sends the next attempt to a changed forwarding URL, sub-path and query appended', async () => {
    const { endpoint, eventId } = await retryingEvent('moved', '/sub?x=1');
    expect(failing.requests.at(-1)?.url).toBe('/in/sub?x=1');
    await patchEndpoint(session, endpoint.id, { forwarding: `${healthy.url}/new?k=v` });
    ctx.clock!.advanceMs(30_000);
    await runDue(ctx.service);
    const detail = await waitForAttempt(session, eventId, 2, ['succeeded']);
    expect(detail.deliveries[1].target_url).toBe(`${healthy.url}/new/sub?k=v&x=1`);
    expect(detail.deliveries[0].target_url).toBe(`${failing.url}/in/sub?x=1`);
    expect(healthy.requests.at(-1)?.url).toBe('/new/sub?k=v&x=1');
    expect(detail.forward_status).toBe('delivered');
  });

  it("cancels an event's retries on request and answers with the event", async () => {
    const { eventId } = await retryingEvent('cancel me');
    const response = await session.call('POST', `/app/api/events/${eventId}/cancel`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: eventId, forward_status: 'cancelled', attempts: 1 });
    expect(response.body.deliveries.map((d: any) => d.state)).toEqual(['failed', 'cancelled']);
    ctx.clock!.advanceMs(24 * 3600_000);
    await runDue(ctx.service);
    expect(countFor(failing, eventId)).toBe(1);

    // Again, and on a delivered event: nothing left to cancel, same answer shape.
    expect((await session.call('POST', `/app/api/events/${eventId}/cancel`)).status).toBe(200);
    const other = await signUp(ctx.url);
    expect((await other.call('POST', `/app/api/events/${eventId}/cancel`)).status).toBe(404);
    expect((await session.call('POST', '/app/api/events/abc/cancel')).status).toBe(400);
  });

  it('records an attempt in flight during a cancel but schedules nothing after it', async () => {
    const held: ServerResponse[] = [];
    const holding = await startReceiver((_request, res) => void held.push(res));
    try {
      const endpoint = await createEndpoint(session, 'cancel in flight');
      await patchEndpoint(session, endpoint.id, { forwarding: holding.url });
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      await holding.waitForRequests(1);
      const cancelled = await session.call('POST', `/app/api/events/${eventId}/cancel`);
      expect(cancelled.body.forward_status).toBe('cancelled');
      expect(cancelled.body.deliveries).toMatchObject([{ attempt: 1, state: 'in_flight' }]);
      held[0]!.writeHead(500).end();
      const detail = await waitForAttempt(session, eventId, 1, ['failed']);
      await runDue(ctx.service);
      expect(detail.forward_status).toBe('cancelled');
      expect((await eventDetail(session, eventId)).deliveries).toHaveLength(1);
    } finally {
      await holding.close();
    }
  });
});
