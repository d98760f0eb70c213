import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { AlertScheduler } from '../../src/alerts/scheduler.js';
import { ManualClock } from '../../src/clock.js';
import type { RunningService } from '../../src/service.js';
import type { Dialect } from '../../src/store/db.js';
import { DIALECTS, type TestDatabase, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { type Session, createEndpoint } from '../helpers/http.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestService } from '../helpers/service.js';
import { type Mailbox, startMailbox } from './mailbox.js';

export interface ReceivedPost {
  path: string;
  contentType: string | undefined;
  body: any;
}

/** The shared test receiver, read as an alert webhook: JSON posts by path. */
export interface AlertReceiver {
  url: string;
  /** Posts to one path (each test uses its own), bodies parsed as JSON. */
  at(path: string): ReceivedPost[];
  /** Makes the receiver answer with this status from now on (200 "ok" by default). */
  answerStatus(status: number): void;
  close(): Promise<void>;
}

export async function startAlertReceiver(): Promise<AlertReceiver> {
  const receiver = await startReceiver();
  return {
    url: receiver.url,
    at: (path) =>
      receiver.requests
        .filter((r) => r.url === path)
        .map((r) => ({
          path: r.url,
          contentType: r.header('content-type'),
          body: JSON.parse(r.body.toString('utf8')),
        })),
    answerStatus: (status) =>
      receiver.answer({ status, body: status < 300 ? 'ok' : 'receiver says no' }),
    close: () => receiver.close(),
  };
}

export function schedulerOf(service: RunningService): AlertScheduler {
  const loop = service.loops.find((l) => l.name === 'alerts');
  if (!(loop instanceof AlertScheduler)) throw new Error('no alert scheduler in this service');
  return loop;
}

/** Sends one request to an endpoint's capture URL, as a third-party sender would. */
export async function capture(endpoint: { url: string }, body = '{"ping":true}'): Promise<void> {
  const response = await fetch(endpoint.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
  await response.text();
}

/** An endpoint with silence alerts and an alert webhook on a path of its own. */
export async function watchedEndpoint(
  session: Session,
  receiver: AlertReceiver,
  settings: { name?: string; silence_minutes: number | null },
): Promise<{ endpoint: any; hookPath: string }> {
  const endpoint = await createEndpoint(session, settings.name ?? 'Payments');
  const hookPath = `/alerts/${randomBytes(4).toString('hex')}`;
  const patch = await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
    silence_minutes: settings.silence_minutes,
    alert_webhook_url: `${receiver.url}${hookPath}`,
  });
  if (patch.status !== 200) throw new Error(`PATCH failed: ${JSON.stringify(patch.body)}`);
  return { endpoint: patch.body, hookPath };
}

export interface AlertContext {
  readonly service: RunningService;
  readonly url: string;
  readonly clock: ManualClock;
  readonly mailbox: Mailbox;
  readonly receiver: AlertReceiver;
  readonly scheduler: AlertScheduler;
  dialect: Dialect;
  /** Moves the clock and runs one scheduler check, waiting for its sends. */
  advanceAndTick(ms: number): Promise<void>;
}

/**
 * Runs a suite once per dialect against a real service with a manual clock, a real SMTP
 * server (unless `smtp: false`) and a real webhook receiver.
 */
export function describeAlerts(
  name: string,
  options: { smtp?: boolean; env?: Record<string, string> },
  body: (ctx: AlertContext) => void,
): void {
  for (const dialect of DIALECTS) {
    const run = dialect === 'postgres' && !pgAvailable() ? describe.skip : describe;
    run(`${name} [${dialect}]`, () => {
      let service: RunningService | undefined;
      let database: TestDatabase | undefined;
      let mailbox: Mailbox | undefined;
      let receiver: AlertReceiver | undefined;
      const clock = new ManualClock();
      beforeAll(async () => {
        mailbox = await startMailbox();
        receiver = await startAlertReceiver();
        database = await createTestDatabase(dialect);
        service = await startTestService(database, {
          clock,
          env: { ...(options.smtp === false ? {} : { SMTP_URL: mailbox.url }), ...options.env },
        });
      });
      afterAll(async () => {
        await service?.stop();
        await database?.drop();
        await mailbox?.close();
        await receiver?.close();
      });
      const need = <T>(value: T | undefined): T => {
        if (value === undefined) throw new Error('suite not started');
        return value;
      };
      const ctx: AlertContext = {
        get service() {
          return need(service);
        },
        get url() {
          return need(service).url;
        },
        clock,
        get mailbox() {
          return need(mailbox);
        },
        get receiver() {
          return need(receiver);
        },
        get scheduler() {
          return schedulerOf(need(service));
        },
        dialect,
        async advanceAndTick(ms: number) {
          clock.advanceMs(ms);
          await schedulerOf(need(service)).tick();
        },
      };
      body(ctx);
    });
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
