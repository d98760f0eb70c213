import Stripe from 'stripe';
import { expect, it } from 'vitest';
import { MICROS_PER_HOUR } from '../../src/clock.js';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';

const stripe = new Stripe('sk_test_unused');

describeService('capture with signature verification', { manualClock: true }, (ctx) => {
  let session: Session;
  let endpoint: any;

  async function capture(body: string, headers: Record<string, string>) {
    const response = await fetch(`${ctx.url}/i/${endpoint.token}`, {
      method: 'POST',
      headers,
      body,
    });
    expect(response.status).toBe(200);
    const { event_id } = (await response.json()) as { event_id: number };
    return (await session.call('GET', `/app/api/events/${event_id}`)).body;
  }

  function stripeHeader(payload: string, secret: string) {
    const timestamp = Math.floor(ctx.clock!.nowMicros() / 1_000_000);
    return {
      'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
    };
  }

  it('sets Stripe verification; the secret is write-only', async () => {
    session = await signUp(ctx.url);
    endpoint = await createEndpoint(session, 'Stripe');
    const patched = await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      verify_scheme: 'stripe',
      signing_secret: 'whsec_first',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.verify_scheme).toBe('stripe');
    expect(patched.body.has_signing_secret).toBe(true);
    expect(JSON.stringify(patched.body)).not.toContain('whsec_first');
    const listed = await session.call('GET', '/app/api/endpoints');
    expect(JSON.stringify(listed.body)).not.toContain('whsec_first');
  });

  it('labels a correctly signed request valid with the current key', async () => {
    const body = '{"id":"evt_1"}';
    const event = await capture(body, stripeHeader(body, 'whsec_first'));
    expect(event.signature).toBe('valid');
    expect(event.signature_reason).toBeNull();
    expect(event.signature_key).toBe('current');
  });

  it('keeps an invalid request, answers 200, and shows why', async () => {
    const body = '{"id":"evt_2"}';
    const tampered = await capture(`${body} `, stripeHeader(body, 'whsec_first'));
    expect(tampered.signature).toBe('invalid');
    expect(tampered.signature_reason).toBe('mismatch');
    const unsigned = await capture(body, {});
    expect(unsigned.signature_reason).toBe('missing_header');
    const summary = await session.call('GET', `/app/api/endpoints/${endpoint.id}/events?limit=1`);
    expect(summary.body.results[0]).toMatchObject({
      signature: 'invalid',
      signature_reason: 'missing_header',
    });
  });

  it('keeps the previous secret valid for the rotation window', async () => {
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      signing_secret: 'whsec_second',
    });
    const body = '{"id":"evt_3"}';
    expect((await capture(body, stripeHeader(body, 'whsec_second'))).signature_key).toBe('current');
    const old = await capture(body, stripeHeader(body, 'whsec_first'));
    expect(old.signature).toBe('valid');
    expect(old.signature_key).toBe('previous');

    ctx.clock!.advanceMs((24 * MICROS_PER_HOUR) / 1000 + 1000);
    const late = await capture(body, stripeHeader(body, 'whsec_first'));
    expect(late.signature).toBe('invalid');
    expect(late.signature_reason).toBe('mismatch');
  });

  it('labels everything invalid with no_secret when the secret is removed', async () => {
    const cleared = await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      signing_secret: null,
    });
    expect(cleared.body.has_signing_secret).toBe(false);
    const body = '{"id":"evt_4"}';
    const event = await capture(body, stripeHeader(body, 'whsec_second'));
    expect(event.signature).toBe('invalid');
    expect(event.signature_reason).toBe('no_secret');
  });

  it('stores a null label when the endpoint verifies nothing', async () => {
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { verify_scheme: null });
    const event = await capture('{}', {});
    expect(event.signature).toBeNull();
    expect(event.signature_reason).toBeNull();
  });

  it('refuses an unknown scheme with 400 naming the field', async () => {
    const response = await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      verify_scheme: 'paypal',
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^verify_scheme:/);
  });
});
