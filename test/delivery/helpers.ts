import { request } from 'node:http';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { RunningService } from '../../src/service.js';
import type { Session } from '../helpers/http.js';

/** The service's delivery worker, to wake it after moving a ManualClock. */
export function deliveryWorker(service: RunningService): DeliveryWorker {
  const worker = service.loops.find((loop) => loop instanceof DeliveryWorker);
  if (!worker) throw new Error('this service runs no delivery worker');
  return worker as DeliveryWorker;
}

/** Wakes the worker, lets it claim what is due, and waits until every send is recorded. */
export async function runDue(service: RunningService): Promise<void> {
  const worker = deliveryWorker(service);
  await worker.wake();
  await worker.settled();
}

/** Polls `check` until it returns a value other than undefined/false (an event, not a schedule). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface CaptureInput {
  method?: string;
  /** After the token: '' or '/more/path?query'. */
  rest?: string;
  /** Raw header pairs, sent in this order and case (Host is added first when absent). */
  headers?: Array<[string, string]>;
  /** Sent in these chunks (so Transfer-Encoding: chunked really is chunked). */
  body?: Buffer | Buffer[];
}

/** Sends a request to a capture URL with exact raw headers; resolves with the event id. */
export function capture(baseUrl: string, token: string, input: CaptureInput = {}): Promise<number> {
  const url = new URL(baseUrl);
  const headers: Array<[string, string]> = [
    ...(input.headers ?? [['Content-Type', 'application/json']]),
  ];
  const chunks =
    input.body === undefined ? [] : Array.isArray(input.body) ? input.body : [input.body];
  const raw: string[] = [];
  if (!headers.some(([n]) => n.toLowerCase() === 'host')) raw.push('Host', url.host);
  const chunked = headers.some(
    ([n, v]) => n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(v),
  );
  if (
    !chunked &&
    !headers.some(([n]) => n.toLowerCase() === 'content-length') &&
    chunks.length > 0
  ) {
    headers.push(['Content-Length', String(chunks.reduce((n, c) => n + c.length, 0))]);
  }
  for (const [name, value] of headers) raw.push(name, value);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: input.method ?? 'POST',
        path: `/i/${token}${input.rest ?? ''}`,
        headers: raw,
        setHost: false,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString();
          if (res.statusCode !== 200) {
            reject(new Error(`capture answered ${res.statusCode}: ${text}`));
            return;
          }
          resolve(JSON.parse(text).event_id);
        });
      },
    );
    req.on('error', reject);
    // A capture that is never answered fails the test here rather than at its timeout.
    req.setTimeout(15_000, () => req.destroy(new Error('capture was not answered within 15 s')));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

export async function eventDetail(session: Session, eventId: number): Promise<any> {
  const response = await session.call('GET', `/app/api/events/${eventId}`);
  if (response.status !== 200) throw new Error(`event ${eventId}: ${response.status}`);
  return response.body;
}

/** Waits until the event's attempt `n` has reached one of `states`; returns the event. */
export async function waitForAttempt(
  session: Session,
  eventId: number,
  n: number,
  states: string[] = ['succeeded', 'failed'],
  timeoutMs?: number,
): Promise<any> {
  return waitFor(
    async () => {
      const detail = await eventDetail(session, eventId);
      const attempt = detail.deliveries.find((d: any) => d.attempt === n);
      return attempt && states.includes(attempt.state) ? detail : undefined;
    },
    `attempt ${n} of event ${eventId} to be ${states.join(' or ')}`,
    timeoutMs,
  );
}

export async function patchEndpoint(session: Session, id: number, body: unknown): Promise<any> {
  const response = await session.call('PATCH', `/app/api/endpoints/${id}`, body);
  if (response.status !== 200) {
    throw new Error(`PATCH endpoint: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body;
}
