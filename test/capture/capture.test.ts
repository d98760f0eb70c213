import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';

interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Sends a request with exactly these header lines, in this order and case. */
function send(
  url: string,
  options: { method?: string; path: string; headers?: Array<[string, string]>; body?: Buffer },
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'POST',
        path: options.path,
        setHost: false,
        headers: [
          ['Host', target.host],
          ...(options.headers ?? []),
          ...(options.body ? [['Content-Length', String(options.body.length)]] : []),
        ].flat(),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function eventDetail(session: Session, id: number): Promise<any> {
  const response = await session.call('GET', `/app/api/events/${id}`);
  expect(response.status).toBe(200);
  return response.body;
}

describeService('capture', { env: { MAX_BODY_BYTES: '1024' } }, (ctx) => {
  let session: Session;
  let token: string;
  let endpointId: number;

  it('sets up a user and an endpoint', async () => {
    session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    token = endpoint.token;
    endpointId = endpoint.id;
    expect(endpoint.url).toBe(`${ctx.url}/i/${token}`);
  });

  it('keeps header order, case and duplicates, and the exact body', async () => {
    const body = Buffer.from('{"amount": 100,  "currency":"eur"}');
    const response = await send(ctx.url, {
      path: `/i/${token}`,
      headers: [
        ['X-Zeta', 'last-first'],
        ['content-type', 'application/json'],
        ['X-Dup', 'one'],
        ['x-dup', 'two'],
        ['X-Alpha', 'a'],
      ],
      body,
    });
    expect(response.status).toBe(200);
    const answer = JSON.parse(response.body);
    expect(answer).toEqual({ ok: true, event_id: expect.any(Number) });
    const event = await eventDetail(session, answer.event_id);
    expect(event.raw_headers).toEqual([
      ['Host', new URL(ctx.url).host],
      ['X-Zeta', 'last-first'],
      ['content-type', 'application/json'],
      ['X-Dup', 'one'],
      ['x-dup', 'two'],
      ['X-Alpha', 'a'],
      ['Content-Length', String(body.length)],
      ['Connection', 'keep-alive'],
    ]);
    expect(event.headers['x-dup']).toBe('one, two');
    expect(event.body).toBe(body.toString());
    expect(event.body_encoding).toBe('utf8');
    expect(event.size).toBe(body.length);
    expect(event.method).toBe('POST');
    expect(event.content_type).toBe('application/json');
    expect(event.source_ip).toBe('127.0.0.1');
    expect(event.received_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(event.truncated).toBe(false);
    expect(event.signature).toBeNull();
    expect(event.forward_status).toBeNull();
    expect(event.endpoint).toBe(endpointId);
  });

  it('keeps binary and invalid UTF-8 bodies byte for byte', async () => {
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x01, 0xc3, 0x28, 0x80, 0x7f]);
    const response = await send(ctx.url, {
      path: `/i/${token}`,
      headers: [['Content-Type', 'application/octet-stream']],
      body,
    });
    const event = await eventDetail(session, JSON.parse(response.body).event_id);
    expect(event.body_encoding).toBe('base64');
    expect(Buffer.from(event.body, 'base64').equals(body)).toBe(true);
    expect(event.size).toBe(8);
  });

  it('captures an empty body', async () => {
    const response = await send(ctx.url, { path: `/i/${token}`, body: Buffer.alloc(0) });
    const event = await eventDetail(session, JSON.parse(response.body).event_id);
    expect(event.body).toBe('');
    expect(event.size).toBe(0);
  });

  it('captures a GET with a query and no body, and a sub-path', async () => {
    const response = await send(ctx.url, {
      method: 'GET',
      path: `/i/${token}/deep/path?b=2&a=%20x&a=y`,
    });
    expect(response.status).toBe(200);
    const event = await eventDetail(session, JSON.parse(response.body).event_id);
    expect(event.method).toBe('GET');
    expect(event.path).toBe('/deep/path');
    expect(event.query_string).toBe('b=2&a=%20x&a=y');
    expect(event.body).toBe('');
  });

  it('captures a GET with a body and a malformed Content-Type byte for byte', async () => {
    const response = await send(ctx.url, {
      method: 'GET',
      path: `/i/${token}`,
      headers: [['Content-Type', 'garbage;;==']],
      body: Buffer.from('body on a GET'),
    });
    expect(response.status).toBe(200);
    const event = await eventDetail(session, JSON.parse(response.body).event_id);
    expect(event.body).toBe('body on a GET');
    expect(event.content_type).toBe('garbage;;==');
  });

  it('captures every method', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
      const response = await send(ctx.url, { method, path: `/i/${token}` });
      expect(response.status, method).toBe(200);
      if (method === 'HEAD') {
        expect(response.body).toBe('');
      } else {
        const event = await eventDetail(session, JSON.parse(response.body).event_id);
        expect(event.method).toBe(method);
      }
    }
  });

  it('truncates a body over the limit, keeps its size, and still answers 200', async () => {
    const body = Buffer.alloc(5000, 'x');
    body.write('START', 0);
    const response = await send(ctx.url, { path: `/i/${token}`, body });
    expect(response.status).toBe(200);
    const event = await eventDetail(session, JSON.parse(response.body).event_id);
    expect(event.truncated).toBe(true);
    expect(event.size).toBe(5000);
    expect(event.body.length).toBe(1024);
    expect(event.body.startsWith('START')).toBe(true);
  });

  it('answers 404 for an unknown token', async () => {
    const response = await send(ctx.url, { path: '/i/no-such-token', body: Buffer.from('x') });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body).error).toBe('not_found');
  });

  it('still captures while the endpoint is paused', async () => {
    const paused = await session.call('PATCH', `/app/api/endpoints/${endpointId}`, {
      is_active: false,
    });
    expect(paused.body.is_active).toBe(false);
    const response = await send(ctx.url, {
      path: `/i/${token}`,
      body: Buffer.from('while paused'),
    });
    expect(response.status).toBe(200);
    await session.call('PATCH', `/app/api/endpoints/${endpointId}`, { is_active: true });
  });

  it('answers 431 to headers over the limit', async () => {
    const response = await send(ctx.url, {
      path: `/i/${token}`,
      headers: [['X-Huge', 'h'.repeat(40 * 1024)]],
      body: Buffer.from('x'),
    });
    expect(response.status).toBe(431);
  });

  it('closes a connection that never finishes its headers, without a capture', async () => {
    const before = (await session.call('GET', `/app/api/endpoints/${endpointId}`)).body
      .events_total;
    const target = new URL(ctx.url);
    const socket = connect(Number(target.port), target.hostname);
    socket.write(`POST /i/${token} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf`);
    socket.destroy();
    const after = (await session.call('GET', `/app/api/endpoints/${endpointId}`)).body.events_total;
    expect(after).toBe(before);
  });

  it('answers 500 concurrent captures with 200, storing each exactly once', async () => {
    const before = (await session.call('GET', `/app/api/endpoints/${endpointId}`)).body
      .events_total;
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        send(ctx.url, {
          path: `/i/${token}`,
          headers: [['Content-Type', 'application/json']],
          body: Buffer.from(JSON.stringify({ n: i })),
        }),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const ids = responses.map((r) => JSON.parse(r.body).event_id as number);
    expect(new Set(ids).size).toBe(500);
    const endpoint = (await session.call('GET', `/app/api/endpoints/${endpointId}`)).body;
    expect(endpoint.events_total).toBe(before + 500);

    const seen: number[] = [];
    let next: string | null = `/app/api/endpoints/${endpointId}/events?limit=200`;
    while (next) {
      const page: any = await session.call('GET', next.replace(ctx.url, ''));
      seen.push(...page.body.results.map((e: { id: number }) => e.id));
      next = page.body.next;
    }
    for (const id of ids) expect(seen).toContain(id);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
