import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import { type TestDatabase, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { createEndpoint, signUp } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { startTestService } from '../helpers/service.js';
import { capture, deliveryWorker, patchEndpoint, waitFor } from './helpers.js';

const EVENTS = 2000;

// Several instances share nothing but the database (DESIGN §1 "Scaling out").
(pgAvailable() ? describe : describe.skip)('several instances on PostgreSQL', () => {
  let database: TestDatabase;
  let front: RunningService;
  const workers: RunningService[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    front = await startTestService(database, { env: { HOOKWATCH_ROLES: 'capture,api,app' } });
    // A little latency per answer, so every instance has work in flight at once.
    receiver = await startReceiver((_request, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 5);
    });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await front?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it('sends each of 2,000 due attempts exactly once across three workers', async () => {
    const session = await signUp(front.url);
    const endpoint = await createEndpoint(session, 'shared queue');
    await patchEndpoint(session, endpoint.id, { forwarding: receiver.url });
    const ids: number[] = [];
    for (let start = 0; start < EVENTS; start += 100) {
      ids.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(100, EVENTS - start) }, (_, i) =>
            capture(front.url, endpoint.token, { body: Buffer.from(`{"n":${start + i}}`) }),
          ),
        )),
      );
    }
    expect(receiver.requests).toHaveLength(0);

    workers.push(
      ...(await Promise.all(
        [1, 2, 3].map(() =>
          startTestService(database, {
            env: { HOOKWATCH_ROLES: 'worker', DELIVERY_CONCURRENCY: '32', DELIVERY_PER_HOST: '32' },
          }),
        ),
      )),
    );
    await receiver.waitForRequests(EVENTS, 60_000);
    const store = front.services.store;
    await waitFor(
      async () => {
        const row = await store.db
          .selectFrom('attempts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', endpoint.id)
          .where('state', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(row.n) === EVENTS;
      },
      'every attempt to be recorded',
      30_000,
    );
    for (const w of workers) await deliveryWorker(w).settled();

    const sent = receiver.requests.map((r) => Number(r.header('x-hookwatch-event-id')));
    expect(sent).toHaveLength(EVENTS);
    expect(new Set(sent)).toEqual(new Set(ids));

    const rows = await store.db
      .selectFrom('attempts')
      .select(['attempt', 'state', 'claimed_by'])
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows).toHaveLength(EVENTS);
    expect(rows.every((r) => r.attempt === 1 && r.state === 'succeeded')).toBe(true);
    const instances = new Set(rows.map((r) => r.claimed_by!.split(':').slice(0, 3).join(':')));
    expect(instances.size).toBeGreaterThan(1);
  });
});
