import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { RunningService } from '../../src/service.js';
import { type TestDatabase, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { type Session, signUp } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import {
  type AlertReceiver,
  MINUTE,
  capture,
  schedulerOf,
  startAlertReceiver,
  watchedEndpoint,
} from './helpers.js';
import { type Mailbox, startMailbox } from './mailbox.js';

const run = pgAvailable() ? describe : describe.skip;

run('alerts with three instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let mailbox: Mailbox;
  let receiver: AlertReceiver;
  const services: RunningService[] = [];
  const clock = new ManualClock();

  beforeAll(async () => {
    mailbox = await startMailbox();
    receiver = await startAlertReceiver();
    database = await createTestDatabase('postgres');
    for (let i = 0; i < 3; i += 1) {
      services.push(await startTestService(database, { clock, env: { SMTP_URL: mailbox.url } }));
    }
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await database?.drop();
    await mailbox?.close();
    await receiver?.close();
  });

  /** Every instance checks at the same moment (their own timers keep running too). */
  const tickAll = () => Promise.all(services.map((s) => schedulerOf(s).tick()));

  it('sends each alert and each recovered notice exactly once', async () => {
    const session: Session = await signUp(services[0]!.url);
    const watched = [];
    for (let i = 1; i <= 6; i += 1) {
      watched.push(
        await watchedEndpoint(session, receiver, { name: `Shop ${i}`, silence_minutes: 1 }),
      );
    }
    // Captured through different instances.
    for (const [i, { endpoint }] of watched.entries()) {
      const via = services[i % 3]!.url;
      await capture({ url: endpoint.url.replace(services[0]!.url, via) });
    }

    clock.advanceMs(MINUTE + 1000);
    await tickAll();
    await tickAll();
    const expectedSilent = watched.map(
      (_, i) => `Hookwatch: "Shop ${i + 1}" is silent: no requests for 1 minute`,
    );
    expect(
      mailbox
        .to(session.email)
        .map((m) => m.subject)
        .sort(),
    ).toEqual(expectedSilent.sort());
    for (const { hookPath } of watched) {
      expect(receiver.at(hookPath).map((p) => p.body.kind)).toEqual(['silence']);
    }

    for (const [i, { endpoint }] of watched.entries()) {
      await capture({ url: endpoint.url.replace(services[0]!.url, services[(i + 1) % 3]!.url) });
    }
    clock.advanceMs(1000);
    await tickAll();
    await tickAll();
    expect(mailbox.to(session.email)).toHaveLength(12);
    expect(
      mailbox
        .to(session.email)
        .filter((m) => m.subject.includes('recovered'))
        .map((m) => m.subject)
        .sort(),
    ).toEqual(
      watched
        .map((_, i) => `Hookwatch: "Shop ${i + 1}" recovered: requests are arriving again`)
        .sort(),
    );
    for (const { hookPath } of watched) {
      expect(receiver.at(hookPath).map((p) => p.body.kind)).toEqual([
        'silence',
        'silence_recovered',
      ]);
    }
    const list = await session.call('GET', '/app/api/alerts?limit=200');
    expect(list.body.results).toHaveLength(12);
    for (const alert of list.body.results) {
      expect(alert.channels.email).toMatchObject({ status: 'sent', tries: 1 });
      expect(alert.channels.webhook).toMatchObject({ status: 'sent', tries: 1 });
    }
  });
});
