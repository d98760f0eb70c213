import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';
import { capture, patchEndpoint, waitFor, waitForAttempt } from './helpers.js';

describeService(
  'delivery fairness',
  { env: { DELIVERY_CONCURRENCY: '4', DELIVERY_PER_HOST: '2' } },
  (ctx) => {
    let session: Session;
    let slow: Receiver;
    let healthy: Receiver;
    const held: ServerResponse[] = [];

    beforeAll(async () => {
      session = await signUp(ctx.url);
      slow = await startReceiver((_request, res) => void held.push(res));
      healthy = await startReceiver();
    });
    afterAll(async () => {
      await slow.close();
      await healthy.close();
    });

    it('keeps a healthy host prompt while a slow host has a backlog', async () => {
      const slowEndpoint = await createEndpoint(session, 'slow');
      const fastEndpoint = await createEndpoint(session, 'fast');
      await patchEndpoint(session, slowEndpoint.id, { forwarding: slow.url });
      await patchEndpoint(session, fastEndpoint.id, { forwarding: healthy.url });

      // The slow host gets ten; it answers none of them for now.
      for (let i = 0; i < 10; i += 1) {
        await capture(ctx.url, slowEndpoint.token, { body: Buffer.from(`{"slow":${i}}`) });
      }
      await slow.waitForRequests(2);
      const fast: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        fast.push(
          await capture(ctx.url, fastEndpoint.token, { body: Buffer.from(`{"fast":${i}}`) }),
        );
      }
      for (const id of fast) await waitForAttempt(session, id, 1, ['succeeded']);
      expect(healthy.requests).toHaveLength(6);
      // Only DELIVERY_PER_HOST requests ever reached the slow host at once.
      expect(slow.requests).toHaveLength(2);

      // The slow host recovers: its backlog drains, two at a time.
      slow.answer({ status: 200 });
      for (const res of held.splice(0)) res.writeHead(200).end();
      await slow.waitForRequests(10);
      expect(new Set(slow.requests.map((r) => r.header('x-hookwatch-event-id'))).size).toBe(10);
    });
  },
);

// This suite runs its own worker, with a short deadline, instead of the service's.
describeService('delivery deadlines', { env: { HOOKWATCH_ROLES: 'capture,api,app' } }, (ctx) => {
  let worker: DeliveryWorker;
  let session: Session;

  beforeAll(async () => {
    worker = new DeliveryWorker(ctx.service.services, { totalTimeoutMs: 1500, stopGraceMs: 0 });
    worker.start();
    session = await signUp(ctx.url);
  });
  afterAll(async () => {
    await worker.stop();
  });

  it('records a receiver that never answers as a timeout and retries it', async () => {
    const silent = await startReceiver(() => {});
    try {
      const endpoint = await createEndpoint(session, 'silent');
      await patchEndpoint(session, endpoint.id, { forwarding: silent.url });
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      const detail = await waitForAttempt(session, eventId, 1, ['failed']);
      expect(detail.deliveries[0]).toMatchObject({
        status_code: null,
        error: `timeout: no complete answer from 127.0.0.1:${silent.port} within 1.5 s`,
        response_body: null,
      });
      await waitFor(async () => {
        const d = (await session.call('GET', `/app/api/events/${eventId}`)).body;
        return d.deliveries[1]?.state === 'scheduled' ? d : undefined;
      }, 'attempt 2');
    } finally {
      await silent.close();
    }
  });
});

describeService('stopping the worker', { env: { HOOKWATCH_ROLES: 'capture,api,app' } }, (ctx) => {
  it('hands an attempt in flight back to the queue, and the next worker sends it', async () => {
    const session = await signUp(ctx.url);
    const held: ServerResponse[] = [];
    const receiver = await startReceiver((_request, res) => void held.push(res));
    const first = new DeliveryWorker(ctx.service.services, { stopGraceMs: 0 });
    first.start();
    let second: DeliveryWorker | null = null;
    try {
      const endpoint = await createEndpoint(session, 'handed back');
      await patchEndpoint(session, endpoint.id, { forwarding: receiver.url });
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      await receiver.waitForRequests(1);
      await first.stop();
      const detail = (await session.call('GET', `/app/api/events/${eventId}`)).body;
      expect(detail.deliveries).toMatchObject([
        { attempt: 1, state: 'scheduled', started_at: null, status_code: null },
      ]);
      expect(detail.attempts).toBe(0);
      expect(detail.forward_status).toBe('pending');

      receiver.answer({ status: 200 });
      second = new DeliveryWorker(ctx.service.services);
      second.start();
      const done = await waitForAttempt(session, eventId, 1, ['succeeded']);
      expect(done.attempts).toBe(1);
      expect(receiver.requests.map((r) => r.header('x-hookwatch-event-id'))).toEqual([
        String(eventId),
        String(eventId),
      ]);
    } finally {
      await first.stop();
      await second?.stop();
      await receiver.close();
    }
  });
});
