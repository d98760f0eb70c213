import Stripe from 'stripe';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';

const stripe = new Stripe('sk_test_unused');

describeService('what capture forwards', { env: { MAX_BODY_BYTES: '64' } }, (ctx) => {
  let receiver: Receiver;
  let session: Session;
  let endpoint: any;

  beforeAll(async () => {
    receiver = await startReceiver({ status: 200, body: 'ok' });
  });
  afterAll(async () => {
    await receiver.close();
  });

  async function capture(body: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${ctx.url}/i/${endpoint.token}`, {
      method: 'POST',
      headers,
      body,
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { event_id: number }).event_id;
  }

  it('forwards a valid request and keeps an invalid or truncated one home', async () => {
    session = await signUp(ctx.url);
    endpoint = await createEndpoint(session, 'Stripe, forwarded');
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      verify_scheme: 'stripe',
      signing_secret: 'whsec_forward',
      forwarding: receiver.url,
    });

    const valid = '{"id":"evt_ok"}';
    const header = stripe.webhooks.generateTestHeaderString({
      payload: valid,
      secret: 'whsec_forward',
    });
    const validId = await capture(valid, { 'Stripe-Signature': header });
    const invalidId = await capture('{"id":"evt_forged"}', { 'Stripe-Signature': header });
    const long = JSON.stringify({ pad: 'x'.repeat(100) });
    const truncatedId = await capture(long, {
      'Stripe-Signature': stripe.webhooks.generateTestHeaderString({
        payload: long,
        secret: 'whsec_forward',
      }),
    });

    const [forwarded] = await receiver.waitForRequests(1);
    expect(forwarded!.body.toString()).toBe(valid);
    expect(forwarded!.header('x-hookwatch-event-id')).toBe(String(validId));

    const invalid = (await session.call('GET', `/app/api/events/${invalidId}`)).body;
    expect(invalid).toMatchObject({
      signature: 'invalid',
      signature_reason: 'mismatch',
      forward_status: 'not_forwarded',
      attempts: 0,
      deliveries: [],
    });
    const truncated = (await session.call('GET', `/app/api/events/${truncatedId}`)).body;
    expect(truncated).toMatchObject({
      truncated: true,
      forward_status: 'not_forwarded',
      deliveries: [],
    });

    // Whatever else the worker does, only the valid request ever reaches the receiver.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.map((r) => r.header('x-hookwatch-event-id'))).toEqual([
      String(validId),
    ]);
  });
});
