import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRequest } from '../../src/delivery/send.js';
import { checkTargetUrl, createGuardedAgent } from '../../src/delivery/ssrf.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

/** A DNS that answers `name` with `address` and asks the system for everything else. */
function dnsWith(name: string, address: string): LookupFunction {
  return (hostname, options, callback) => {
    if (hostname !== name) return dns.lookup(hostname, options, callback);
    const family = address.includes(':') ? 6 : 4;
    if (options.all) {
      (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [
        { address, family },
      ]);
    } else {
      callback(null, address, family);
    }
  };
}

describe('SSRF guard', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const forms = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://10.0.0.1:${port}/`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://100.64.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://[fd00::1]:${port}/`,
    `http://[fe80::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://127.1:${port}/`,
    `http://localhost:${port}/`,
    `http://loopback.example.test:${port}/`,
    `https://127.0.0.1:${port}/`,
  ];

  it('refuses every non-public form at connect time and never reaches the receiver', async () => {
    // The agent alone, without the pre-connect check: the connect hook must refuse.
    const agent = createGuardedAgent({
      allowPrivateTargets: false,
      connectTimeoutMs: 2000,
      lookup: dnsWith('loopback.example.test', '127.0.0.1'),
    });
    try {
      for (const url of forms(receiver.port)) {
        const outcome = await sendRequest(
          agent,
          {
            method: 'POST',
            url,
            headers: [['Content-Type', 'text/plain']],
            body: Buffer.from('x'),
          },
          { totalTimeoutMs: 5000 },
        );
        expect(outcome.statusCode, url).toBeNull();
        expect(outcome.error, url).toMatch(/^blocked: .+ resolves to a private address \(.+\)/);
      }
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('names the host and the address it resolved to', async () => {
    const agent = createGuardedAgent({
      allowPrivateTargets: false,
      lookup: dnsWith('metadata.example.test', '169.254.169.254'),
    });
    try {
      const outcome = await sendRequest(agent, {
        method: 'GET',
        url: 'http://metadata.example.test/',
        headers: [],
        body: Buffer.alloc(0),
      });
      expect(outcome.error).toContain(
        'blocked: metadata.example.test resolves to a private address (169.254.169.254)',
      );
    } finally {
      await agent.close();
    }
  });

  it('refuses a name when any of its addresses is private', async () => {
    const mixed: LookupFunction = (_hostname, _options, callback) =>
      (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ]);
    const agent = createGuardedAgent({ allowPrivateTargets: false, lookup: mixed });
    try {
      const outcome = await sendRequest(agent, {
        method: 'GET',
        url: 'http://mixed.example.test/',
        headers: [],
        body: Buffer.alloc(0),
      });
      expect(outcome.error).toMatch(/^blocked: mixed\.example\.test .*\(10\.1\.2\.3\)/);
    } finally {
      await agent.close();
    }
  });

  it('checks literal addresses before connecting, after URL normalisation', () => {
    for (const url of forms(8080).filter((u) => !/localhost|example\.test/.test(u))) {
      expect(checkTargetUrl(url, false), url).toMatch(/^blocked: /);
    }
    expect(checkTargetUrl('http://2130706433/', false)).toContain('(127.0.0.1)');
    expect(checkTargetUrl('ftp://example.com/', false)).toMatch(/only http and https/);
    expect(checkTargetUrl('file:///etc/passwd', true)).toMatch(/only http and https/);
    expect(checkTargetUrl('https://example.com/hook', false)).toBeNull();
    expect(checkTargetUrl('http://93.184.216.34/', false)).toBeNull();
    expect(checkTargetUrl('http://127.0.0.1/', true)).toBeNull();
  });

  it('lets private targets through when HOOKWATCH_ALLOW_PRIVATE_TARGETS is set', async () => {
    const agent = createGuardedAgent({ allowPrivateTargets: true });
    try {
      const outcome = await sendRequest(agent, {
        method: 'POST',
        url: `http://localhost:${receiver.port}/allowed`,
        headers: [],
        body: Buffer.from('hi'),
      });
      expect(outcome.statusCode).toBe(200);
      expect(receiver.requests.at(-1)?.url).toBe('/allowed');
    } finally {
      await agent.close();
    }
  });

  it('does not follow a redirect to a private address', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver({
      status: 302,
      headers: { location: `http://127.0.0.1:${target.port}/inner` },
    });
    // Private targets allowed so the redirecting receiver itself can be reached: the
    // redirect is still only a response, never a second request.
    const agent = createGuardedAgent({ allowPrivateTargets: true });
    try {
      const outcome = await sendRequest(agent, {
        method: 'POST',
        url: redirecting.url,
        headers: [],
        body: Buffer.from('x'),
      });
      expect(outcome.statusCode).toBe(302);
      expect(redirecting.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    } finally {
      await agent.close();
      await target.close();
      await redirecting.close();
    }
  });
});
