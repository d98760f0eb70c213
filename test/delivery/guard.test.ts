import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';
import { capture, waitFor, waitForAttempt } from './helpers.js';

describeService(
  'SSRF guard in the service',
  { env: { HOOKWATCH_ALLOW_PRIVATE_TARGETS: '0' } },
  (ctx) => {
    let receiver: Receiver;
    let session: Session;

    beforeAll(async () => {
      receiver = await startReceiver();
      session = await signUp(ctx.url);
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('refuses a non-http(s) or literal private forwarding URL at once with 400', async () => {
      const endpoint = await createEndpoint(session);
      for (const forwarding of [
        'ftp://example.com/hook',
        'file:///etc/passwd',
        `http://127.0.0.1:${receiver.port}/`,
        'http://[::1]/',
        'http://169.254.169.254/latest',
        'http://0x7f000001/',
      ]) {
        const response = await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
          forwarding,
        });
        expect(response.status, forwarding).toBe(400);
        expect(response.body.detail).toMatch(/^forwarding: /);
      }
    });

    it('fails an attempt to a private address with a clear error and retries it', async () => {
      const endpoint = await createEndpoint(session, 'set while private targets were allowed');
      // As if the operator turned HOOKWATCH_ALLOW_PRIVATE_TARGETS off after the URL was set.
      await ctx.service.services.store.db
        .updateTable('endpoints')
        .set({ forwarding_url: `http://127.0.0.1:${receiver.port}/hook` })
        .where('id', '=', endpoint.id)
        .execute();
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      const detail = await waitForAttempt(session, eventId, 1, ['failed']);
      expect(detail.deliveries[0].error).toMatch(
        /^blocked: 127\.0\.0\.1 resolves to a private address \(127\.0\.0\.1\)/,
      );
      expect(detail.deliveries[0].status_code).toBeNull();
      await waitFor(async () => {
        const d = (await session.call('GET', `/app/api/events/${eventId}`)).body;
        return d.deliveries[1]?.state === 'scheduled' ? d : undefined;
      }, 'the retry to be scheduled');
      expect(receiver.requests).toHaveLength(0);
    });

    it('counts attempts by outcome in /metrics', async () => {
      const text = await (await fetch(`${ctx.url}/metrics`)).text();
      expect(text).toMatch(/hookwatch_delivery_attempts_total\{outcome="failed"\} [1-9]/);
      expect(text).toMatch(/hookwatch_delivery_queue_due \d+/);
      expect(text).toMatch(/hookwatch_delivery_oldest_due_age_seconds \d/);
    });
  },
);
