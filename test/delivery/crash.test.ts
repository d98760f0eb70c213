import type { ServerResponse } from 'node:http';
import { afterAll, describe, it } from 'vitest';
import type { Dialect } from '../../src/store/db.js';
import { DIALECTS, type TestDatabase, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { type Session, callJson, createEndpoint, signUp } from '../helpers/http.js';
import { type ServiceProcess, spawnService } from '../helpers/process.js';
import { startReceiver } from '../helpers/receiver.js';
import { capture, eventDetail, patchEndpoint, waitFor, waitForAttempt } from './helpers.js';

// Real processes killed with SIGKILL: no graceful stop, nothing flushed. The four cases
// run concurrently; the backoff case waits out one real 30 s retry window, the only
// real-time wait in the delivery tests.
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function track(database: TestDatabase) {
  cleanups.push(() => database.drop());
  const processes: ServiceProcess[] = [];
  cleanups.push(async () => {
    for (const p of processes) await p.kill();
  });
  return (env: Record<string, string> = {}) =>
    spawnService({ DATABASE_URL: database.url, ...env }).then((p) => {
      processes.push(p);
      return p;
    });
}

for (const dialect of DIALECTS) {
  const run = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe.concurrent;
  run(`crash safety [${dialect as Dialect}]`, () => {
    it('sends attempt 2 on time after a SIGKILL during the backoff', async ({ expect }) => {
      const database = await createTestDatabase(dialect);
      const start = await track(database);
      let answered = 0;
      const receiver = await startReceiver((_request, res) => {
        answered += 1;
        res.writeHead(answered === 1 ? 500 : 200).end();
      });
      cleanups.push(() => receiver.close());

      const first = await start();
      const session = await signUp(first.url);
      const endpoint = await createEndpoint(session, 'crash in backoff');
      await patchEndpoint(session, endpoint.id, { forwarding: receiver.url });
      const eventId = await capture(first.url, endpoint.token, { body: Buffer.from('{"k":1}') });
      await waitForAttempt(session, eventId, 1, ['failed']);
      const scheduled = await waitFor(async () => {
        const d = await eventDetail(session, eventId);
        return d.deliveries[1]?.state === 'scheduled' ? d.deliveries[1] : undefined;
      }, 'attempt 2 to be scheduled');
      await first.kill();

      const second = await start();
      const again = { ...session, call: rebase(session, second.url) };
      const detail = await waitForAttempt(again, eventId, 2, ['succeeded'], 60_000);
      const attempt2 = detail.deliveries[1];
      const late = Date.parse(attempt2.started_at) - Date.parse(scheduled.scheduled_at);
      expect(late).toBeGreaterThanOrEqual(0);
      // On time: found by the restarted worker's timer or poll, not hours later.
      expect(late).toBeLessThan(5000);
      expect(detail.forward_status).toBe('delivered');
      expect(receiver.requests.map((r) => r.header('x-hookwatch-event-id'))).toEqual([
        String(eventId),
        String(eventId),
      ]);
    });

    it('retries an attempt in flight at a SIGKILL once its lease runs out', async ({ expect }) => {
      const database = await createTestDatabase(dialect);
      const start = await track(database);
      const held: ServerResponse[] = [];
      const receiver = await startReceiver((_request, res) => void held.push(res));
      cleanups.push(() => receiver.close());

      const first = await start({ ATTEMPT_LEASE_SECONDS: '5' });
      const session = await signUp(first.url);
      const endpoint = await createEndpoint(session, 'crash in flight');
      await patchEndpoint(session, endpoint.id, { forwarding: receiver.url });
      const eventId = await capture(first.url, endpoint.token, { body: Buffer.from('{"k":2}') });
      await receiver.waitForRequests(1);
      await first.kill();

      receiver.answer({ status: 200 });
      const second = await start({ ATTEMPT_LEASE_SECONDS: '5' });
      const again = { ...session, call: rebase(session, second.url) };
      const detail = await waitForAttempt(again, eventId, 1, ['succeeded'], 30_000);
      // At-least-once: the same attempt went out twice, with the same event id.
      expect(receiver.requests.map((r) => r.header('x-hookwatch-event-id'))).toEqual([
        String(eventId),
        String(eventId),
      ]);
      expect(receiver.requests[1]!.body.toString()).toBe('{"k":2}');
      expect(detail.deliveries).toHaveLength(1);
      expect(detail.attempts).toBe(1);
      expect(detail.forward_status).toBe('delivered');
    });
  });
}

/** The same session (sessions live in the database) talking to another process. */
function rebase(session: Session, baseUrl: string): Session['call'] {
  return (method, path, body) => callJson(baseUrl, method, path, { body, cookie: session.cookie });
}
