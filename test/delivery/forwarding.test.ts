import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';
import { capture, patchEndpoint, waitForAttempt } from './helpers.js';

// Headers the HTTP client sets for the target itself.
const CLIENT_SET = new Set(['host', 'connection', 'content-length']);

describeService('forwarding', {}, (ctx) => {
  let receiver: Receiver;
  let session: Session;
  let endpoint: any;

  beforeAll(async () => {
    receiver = await startReceiver();
    session = await signUp(ctx.url);
    endpoint = await createEndpoint(session, 'forwarded');
    await patchEndpoint(session, endpoint.id, { forwarding: `${receiver.url}/hook?a=1` });
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('sends the exact body bytes with the header rules, in raw order', async () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]), randomBytes(3000)]);
    const before = receiver.requests.length;
    const eventId = await capture(ctx.url, endpoint.token, {
      method: 'POST',
      rest: '/deep/path?b=2&c=%20x',
      headers: [
        ['Content-Type', 'application/octet-stream'],
        ['X-Dup', 'one'],
        ['Connection', 'keep-alive, X-Drop-Me'],
        ['X-Drop-Me', 'named by Connection'],
        ['Keep-Alive', 'timeout=5'],
        ['x-dup', 'two'],
        ['Stripe-Signature', 't=1700000000,v1=abc123'],
        ['TE', 'trailers'],
        ['Proxy-Authorization', 'Basic eHl6'],
        ['Proxy-Connection', 'keep-alive'],
        ['Trailer', 'X-Checksum'],
        ['X-Hookwatch-Event-Id', '999999'],
        ['X-Latin', 'caf\u00c3\u00a9'],
        ['Transfer-Encoding', 'chunked'],
      ],
      body: [body.subarray(0, 1000), body.subarray(1000)],
    });
    await waitForAttempt(session, eventId, 1);
    const got = receiver.requests[before]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hook/deep/path?a=1&b=2&c=%20x');
    expect(got.body.equals(body)).toBe(true);
    const passed = got.headers.filter(([n]) => !CLIENT_SET.has(n.toLowerCase()));
    expect(passed).toEqual([
      ['Content-Type', 'application/octet-stream'],
      ['X-Dup', 'one'],
      ['x-dup', 'two'],
      ['Stripe-Signature', 't=1700000000,v1=abc123'],
      ['X-Latin', 'caf\u00c3\u00a9'],
      ['X-Hookwatch-Event-Id', String(eventId)],
      ['X-Hookwatch-Endpoint', String(endpoint.id)],
    ]);
    expect(got.header('host')).toBe(`127.0.0.1:${receiver.port}`);
    expect(got.header('content-length')).toBe(String(body.length));
    expect(got.headers.filter(([n]) => n.toLowerCase() === 'connection')).toHaveLength(1);
  });

  it('forwards every method with its body as captured', async () => {
    const cases: Array<[string, Buffer]> = [
      ['PUT', Buffer.alloc(0)],
      ['GET', Buffer.from('a GET with a body')],
      ['DELETE', Buffer.alloc(0)],
      ['PATCH', Buffer.from('{"patch":true}')],
    ];
    for (const [method, body] of cases) {
      const before = receiver.requests.length;
      const eventId = await capture(ctx.url, endpoint.token, {
        method,
        headers: [['X-Method', method]],
        body: body.length > 0 ? body : undefined,
      });
      await waitForAttempt(session, eventId, 1);
      const got = receiver.requests[before]!;
      expect(got.method).toBe(method);
      expect(got.url).toBe('/hook?a=1');
      expect(got.body.equals(body)).toBe(true);
      expect(got.header('x-hookwatch-event-id')).toBe(String(eventId));
    }
  });

  it('records the answer: status, raw response headers and body, times', async () => {
    receiver.answer({
      status: 201,
      headers: { 'X-Receiver': 'yes', 'Content-Type': 'text/plain' },
      body: 'created',
    });
    try {
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      const detail = await waitForAttempt(session, eventId, 1);
      expect(detail.forward_status).toBe('delivered');
      expect(detail.attempts).toBe(1);
      expect(detail.deliveries).toHaveLength(1);
      const [attempt] = detail.deliveries;
      expect(attempt).toMatchObject({
        attempt: 1,
        trigger: 'auto',
        state: 'succeeded',
        status_code: 201,
        error: null,
        target_url: `${receiver.url}/hook?a=1`,
        response_body: 'created',
      });
      expect(attempt.response_headers['x-receiver']).toBe('yes');
      expect(typeof attempt.duration_ms).toBe('number');
      expect(Date.parse(attempt.finished_at)).toBeGreaterThanOrEqual(
        Date.parse(attempt.started_at),
      );
    } finally {
      receiver.answer({ status: 200, body: 'ok' });
    }
  });

  it('never forwards an event captured while forwarding was off', async () => {
    const quiet = await createEndpoint(session, 'not forwarding');
    const before = receiver.requests.length;
    const eventId = await capture(ctx.url, quiet.token, { body: Buffer.from('{}') });
    await patchEndpoint(session, quiet.id, { forwarding: receiver.url });
    const forwarded = await capture(ctx.url, quiet.token, { body: Buffer.from('{}') });
    await waitForAttempt(session, forwarded, 1);
    const detail = (await session.call('GET', `/app/api/events/${eventId}`)).body;
    expect(detail.forward_status).toBeNull();
    expect(detail.deliveries).toEqual([]);
    expect(receiver.requests.slice(before).map((r) => r.header('x-hookwatch-event-id'))).toEqual([
      String(forwarded),
    ]);
  });
});
