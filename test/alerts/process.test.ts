import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../helpers/http.js';
import { type ServiceProcess, spawnService } from '../helpers/process.js';
import { type AlertReceiver, capture, startAlertReceiver, watchedEndpoint } from './helpers.js';
import { type Mailbox, startMailbox } from './mailbox.js';

const exec = promisify(execFile);

/** Waits for something the service does on its own schedule (real time here). */
async function eventually<T>(
  what: string,
  probe: () => T | undefined,
  timeoutMs: number,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The whole path with real processes and real time: `hookwatch serve` as a child
// process, a 0.1-minute (6 s) threshold, a real SMTP server and webhook receiver.
describe('silence alerts end to end with a real process', () => {
  let mailbox: Mailbox;
  let receiver: AlertReceiver;
  let dir: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    await exec('npm', ['run', 'build:server'], { cwd: join(import.meta.dirname, '../..') });
    mailbox = await startMailbox();
    receiver = await startAlertReceiver();
    dir = mkdtempSync(join(tmpdir(), 'hookwatch-alerts-e2e-'));
  }, 120_000);
  afterAll(async () => {
    if (service && service.child.exitCode === null) await service.kill();
    await mailbox?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the silence alert and the recovered notice, then stops cleanly on SIGTERM', async () => {
    service = await spawnService({
      DATABASE_URL: `sqlite:${join(dir, 'hookwatch.db')}`,
      SMTP_URL: mailbox.url,
      ALERT_FROM: 'alerts@hookwatch.test',
      HOOKWATCH_ALLOW_PRIVATE_TARGETS: '1',
    });
    const session = await signUp(service.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, receiver, {
      name: 'Checkout',
      silence_minutes: 0.1,
    });
    await capture(endpoint);

    // Due 6 s after the capture; DESIGN §6 allows 15 s more.
    const alertMail = await eventually(
      'the silence mail',
      () => mailbox.to(session.email)[0],
      25_000,
    );
    expect(alertMail.subject).toBe('Hookwatch: "Checkout" is silent: no requests for 6 seconds');
    expect(alertMail.from).toBe('alerts@hookwatch.test');
    const post = await eventually('the silence webhook', () => receiver.at(hookPath)[0], 10_000);
    expect(post.body).toMatchObject({
      kind: 'silence',
      endpoint: endpoint.id,
      threshold_minutes: 0.1,
    });

    await capture(endpoint);
    const recovered = await eventually(
      'the recovered mail',
      () => mailbox.to(session.email)[1],
      15_000,
    );
    expect(recovered.subject).toBe('Hookwatch: "Checkout" recovered: requests are arriving again');
    await eventually('the recovered webhook', () => receiver.at(hookPath)[1], 10_000);

    expect(await service.stop()).toBe(0);
    expect(service.logs.some((l) => l.msg === 'Hookwatch stopped')).toBe(true);
    // One notice each, even after the process ran on for a while.
    expect(mailbox.to(session.email)).toHaveLength(2);
    expect(receiver.at(hookPath).map((p) => p.body.kind)).toEqual(['silence', 'silence_recovered']);
  });

  it('says at startup that email alerts are off without SMTP_URL', async () => {
    const quiet = await spawnService({ DATABASE_URL: `sqlite:${join(dir, 'other.db')}` });
    try {
      expect(quiet.logs.some((l) => String(l.msg).includes('email alerts are off'))).toBe(true);
    } finally {
      expect(await quiet.stop()).toBe(0);
    }
  });
});
