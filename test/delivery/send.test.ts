import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundHeaders } from '../../src/delivery/headers.js';
import { sendRequest } from '../../src/delivery/send.js';
import { createGuardedAgent } from '../../src/delivery/ssrf.js';
import { startReceiver } from '../helpers/receiver.js';

describe('outbound headers', () => {
  it('drops hop-by-hop headers, everything Connection names, Host and Content-Length', () => {
    const out = outboundHeaders(
      [
        ['Host', 'hookwatch.example'],
        ['Connection', 'X-One'],
        ['connection', 'x-two , keep-alive'],
        ['X-One', '1'],
        ['X-Two', '2'],
        ['X-Three', '3'],
        ['Keep-Alive', 'timeout=5'],
        ['Proxy-Authenticate', 'Basic'],
        ['Proxy-Authorization', 'Basic eHl6'],
        ['TE', 'trailers'],
        ['Trailer', 'X-Sum'],
        ['Transfer-Encoding', 'chunked'],
        ['Upgrade', 'h2c'],
        ['Proxy-Connection', 'keep-alive'],
        ['Expect', '100-continue'],
        ['Content-Length', '12'],
        ['Authorization', 'Bearer passes'],
      ],
      { eventId: 7, endpointId: 3 },
    );
    expect(out).toEqual([
      ['X-Three', '3'],
      ['Authorization', 'Bearer passes'],
      ['X-Hookwatch-Event-Id', '7'],
      ['X-Hookwatch-Endpoint', '3'],
    ]);
  });

  it('keeps case, order and duplicates, and replaces sender-supplied Hookwatch ids', () => {
    const out = outboundHeaders(
      [
        ['x-b', '1'],
        ['X-A', '2'],
        ['x-b', '3'],
        ['x-hookwatch-endpoint', 'spoofed'],
        ['X-HOOKWATCH-EVENT-ID', 'spoofed'],
        ['X-Hub-Signature-256', 'sha256=abc'],
      ],
      { eventId: 1, endpointId: 2 },
    );
    expect(out).toEqual([
      ['x-b', '1'],
      ['X-A', '2'],
      ['x-b', '3'],
      ['X-Hub-Signature-256', 'sha256=abc'],
      ['X-Hookwatch-Event-Id', '1'],
      ['X-Hookwatch-Endpoint', '2'],
    ]);
  });
});

describe('sending one request', () => {
  const agent = createGuardedAgent({ allowPrivateTargets: true });
  afterAll(async () => {
    await agent.close();
  });
  const post = (url: string, options?: Parameters<typeof sendRequest>[2]) =>
    sendRequest(agent, { method: 'POST', url, headers: [], body: Buffer.from('x') }, options);

  it('records a receiver that never answers as a timeout', async () => {
    const silent = await startReceiver(() => {});
    try {
      const outcome = await post(silent.url, { totalTimeoutMs: 300 });
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toBe(
        `timeout: no complete answer from 127.0.0.1:${silent.port} within 0.3 s`,
      );
      expect(silent.requests).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  it('keeps the first 16 KiB of a 50 MB answer and stops reading', async () => {
    const total = 50 * 1024 * 1024;
    let written = 0;
    let closedEarly = false;
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    chunk.write('BEGIN');
    const huge = await startReceiver((_request, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Length': String(total), 'X-Big': 'yes' });
      res.on('close', () => {
        closedEarly = written < total;
      });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    try {
      const outcome = await post(huge.url);
      expect(outcome.statusCode).toBe(200);
      expect(outcome.error).toBeNull();
      expect(outcome.responseBody).toHaveLength(16 * 1024);
      expect(outcome.responseBody!.subarray(0, 5).toString()).toBe('BEGIN');
      expect(outcome.responseHeaders).toContainEqual(['X-Big', 'yes']);
      // The connection was dropped: the receiver could not push the rest through.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closedEarly).toBe(true);
      expect(written).toBeLessThan(total / 2);
    } finally {
      await huge.close();
    }
  });

  it('keeps response headers as the receiver sent them', async () => {
    const receiver = await startReceiver((_request, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('X-CamelCase', 'v');
      res.writeHead(503).end('unavailable');
    });
    try {
      const outcome = await post(receiver.url);
      expect(outcome.statusCode).toBe(503);
      expect(outcome.responseBody?.toString()).toBe('unavailable');
      const names = outcome.responseHeaders!.map(([n]) => n);
      expect(names.filter((n) => n === 'Set-Cookie')).toHaveLength(2);
      expect(names).toContain('X-CamelCase');
    } finally {
      await receiver.close();
    }
  });

  it('reports a refused connection and an unknown host in plain words', async () => {
    const gone = await startReceiver();
    await gone.close();
    expect((await post(gone.url)).error).toBe(`connection refused by 127.0.0.1:${gone.port}`);
    expect((await post('http://no-such-host.invalid/')).error).toMatch(
      /^DNS lookup failed for no-such-host\.invalid/,
    );
  });

  it('hands back instead of failing when its caller stops it', async () => {
    const silent = await startReceiver(() => {});
    try {
      const controller = new AbortController();
      const pending = post(silent.url, { signal: controller.signal });
      await silent.waitForRequests(1);
      controller.abort();
      const outcome = await pending;
      expect(outcome.abandoned).toBe(true);
    } finally {
      await silent.close();
    }
  });
});

describe('sending with a cut connection', () => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const receiver = await startReceiver((_request, res) => void res.socket?.destroy());
    url = receiver.url;
    close = () => receiver.close();
  });
  afterAll(async () => close());

  it('says the receiver closed the connection', async () => {
    const agent = createGuardedAgent({ allowPrivateTargets: true });
    try {
      const outcome = await sendRequest(agent, {
        method: 'POST',
        url,
        headers: [],
        body: Buffer.from('x'),
      });
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toMatch(
        /^connection closed by 127\.0\.0\.1:\d+ before a complete answer$/,
      );
    } finally {
      await agent.close();
    }
  });
});
