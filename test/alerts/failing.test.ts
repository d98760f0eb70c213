import { expect, it } from 'vitest';
import type { Store } from '../../src/store/db.js';
import { type Session, signUp } from '../helpers/http.js';
import { startReceiver } from '../helpers/receiver.js';
import { HOUR, MINUTE, capture, describeAlerts, watchedEndpoint } from './helpers.js';
import type { AlertReceiver } from './helpers.js';

// The failure record as the delivery worker keeps it (DESIGN §5, issue 6): a failed
// automatic attempt sets `failing_since` if it is null; a success clears it and moves an
// open alert to 'recovering'. Written here directly so these tests pin the alert side
// of that contract on their own.
async function recordDeliveryFailure(store: Store, endpointId: number, at: number) {
  await store.db
    .updateTable('endpoints')
    .set((eb) => ({
      failing_since: eb.fn.coalesce('failing_since', eb.val(at)),
      last_delivery_at: at,
      last_delivery_ok: 0,
    }))
    .where('id', '=', endpointId)
    .execute();
}

async function recordDeliverySuccess(store: Store, endpointId: number, at: number) {
  await store.db
    .updateTable('endpoints')
    .set((eb) => ({
      failing_since: null,
      failing_state: eb
        .case()
        .when('failing_state', '=', 'alerted')
        .then('recovering' as const)
        .else(eb.ref('failing_state'))
        .end(),
      last_delivery_at: at,
      last_delivery_ok: 1,
    }))
    .where('id', '=', endpointId)
    .execute();
}

async function forwardingEndpoint(session: Session, receiver: AlertReceiver, name: string) {
  const watched = await watchedEndpoint(session, receiver, { name, silence_minutes: null });
  const patch = await session.call('PATCH', `/app/api/endpoints/${watched.endpoint.id}`, {
    forwarding: `${receiver.url}/forward`,
  });
  expect(patch.status).toBe(200);
  return watched;
}

describeAlerts('forwarding-failing alerts', {}, (ctx) => {
  const store = () => ctx.service.services.store;

  it('alerts once after FAILING_ALERT_HOURS of failures and says recovered after a success', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await forwardingEndpoint(session, ctx.receiver, 'Orders');
    const firstFailure = ctx.clock.nowMicros();
    await recordDeliveryFailure(store(), endpoint.id, firstFailure);
    await ctx.advanceAndTick(23 * HOUR);
    await recordDeliveryFailure(store(), endpoint.id, ctx.clock.nowMicros());
    await ctx.advanceAndTick(HOUR - 1000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);

    await ctx.advanceAndTick(2000);
    const mails = ctx.mailbox.to(session.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Hookwatch: "Orders" forwarding failing for 24 hours');
    expect(mails[0]!.text).toContain('forwarding has failed for 24 hours without a success');
    expect(ctx.receiver.at(hookPath).map((p) => p.body)).toEqual([
      expect.objectContaining({
        kind: 'failing',
        endpoint: endpoint.id,
        endpoint_name: 'Orders',
        since: new Date(firstFailure / 1000).toISOString(),
        threshold_minutes: 24 * 60,
      }),
    ]);

    // More failures and more time: still one notice.
    await recordDeliveryFailure(store(), endpoint.id, ctx.clock.nowMicros());
    await ctx.advanceAndTick(6 * HOUR);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);

    const success = ctx.clock.nowMicros();
    await recordDeliverySuccess(store(), endpoint.id, success);
    await ctx.advanceAndTick(1000);
    await ctx.advanceAndTick(1000);
    expect(ctx.mailbox.to(session.email).map((m) => m.subject)).toEqual([
      'Hookwatch: "Orders" forwarding failing for 24 hours',
      'Hookwatch: "Orders" forwarding recovered',
    ]);
    const recovered = ctx.receiver.at(hookPath)[1]!.body;
    expect(recovered).toMatchObject({
      kind: 'failing_recovered',
      since: new Date(firstFailure / 1000).toISOString(),
      recovered_at: new Date(success / 1000).toISOString(),
    });
    expect(recovered.text).toContain('recovered');
    expect(ctx.receiver.at(hookPath)).toHaveLength(2);
  });

  it('sends nothing when a success comes before the threshold', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await forwardingEndpoint(session, ctx.receiver, 'Flaky');
    await recordDeliveryFailure(store(), endpoint.id, ctx.clock.nowMicros());
    await ctx.advanceAndTick(20 * HOUR);
    await recordDeliverySuccess(store(), endpoint.id, ctx.clock.nowMicros());
    await ctx.advanceAndTick(10 * HOUR);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);
    expect(ctx.mailbox.to(session.email)).toHaveLength(0);
  });

  it('sends nothing for a paused endpoint', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await forwardingEndpoint(session, ctx.receiver, 'Paused');
    await recordDeliveryFailure(store(), endpoint.id, ctx.clock.nowMicros());
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { is_active: false });
    await ctx.advanceAndTick(30 * HOUR);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);
  });

  it('forgets the failures when forwarding is turned off', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await forwardingEndpoint(session, ctx.receiver, 'Retired');
    await recordDeliveryFailure(store(), endpoint.id, ctx.clock.nowMicros());
    await ctx.advanceAndTick(25 * HOUR);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual(['failing']);

    const off = await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      forwarding: null,
    });
    expect(off.body.forwarding_failing_since).toBeNull();
    await ctx.advanceAndTick(30 * MINUTE);
    // Turned back on later: the old failures do not raise a new alert at once.
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      forwarding: `${ctx.receiver.url}/forward`,
    });
    await ctx.advanceAndTick(25 * HOUR);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual(['failing']);
  });
});

describeAlerts('forwarding-failing alerts from real deliveries', {}, (ctx) => {
  /** Waits for the delivery worker (running on real time) to record an outcome. */
  async function endpointWhen(session: Session, id: number, ready: (e: any) => boolean) {
    const until = Date.now() + 15_000;
    for (;;) {
      const { body } = await session.call('GET', `/app/api/endpoints/${id}`);
      if (ready(body)) return body;
      if (Date.now() > until) throw new Error(`endpoint never got there: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('alerts when a real receiver keeps failing and says recovered after it answers 2xx', async () => {
    const target = await startReceiver({ status: 503, body: 'down for maintenance' });
    try {
      const session = await signUp(ctx.url);
      const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
        name: 'Invoices',
        silence_minutes: null,
      });
      await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
        forwarding: `${target.url}/hook`,
      });
      await capture(endpoint);
      const failing = await endpointWhen(
        session,
        endpoint.id,
        (e) => e.forwarding_failing_since !== null,
      );
      expect(failing.last_delivery_ok).toBe(false);

      await ctx.advanceAndTick(24 * HOUR + 1000);
      expect(ctx.receiver.at(hookPath).map((p) => p.body)).toEqual([
        expect.objectContaining({
          kind: 'failing',
          endpoint: endpoint.id,
          since: failing.forwarding_failing_since,
        }),
      ]);

      target.answer({ status: 200, body: 'ok' });
      await capture(endpoint);
      await endpointWhen(session, endpoint.id, (e) => e.forwarding_failing_since === null);
      await ctx.advanceAndTick(1000);
      expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual([
        'failing',
        'failing_recovered',
      ]);
      expect(ctx.mailbox.to(session.email).map((m) => m.subject)).toEqual([
        'Hookwatch: "Invoices" forwarding failing for 24 hours',
        'Hookwatch: "Invoices" forwarding recovered',
      ]);
    } finally {
      await target.close();
    }
  });
});

describeAlerts('alerts without SMTP_URL', { smtp: false }, (ctx) => {
  it('records the alert with email off, still calls the webhook, and the dashboard knows', async () => {
    const session = await signUp(ctx.url);
    expect((await session.call('GET', '/app/api/me')).body.email_alerts).toBe(false);
    const { hookPath } = await watchedEndpoint(session, ctx.receiver, { silence_minutes: 1 });
    await ctx.advanceAndTick(MINUTE + 1000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    expect(ctx.mailbox.mails).toHaveLength(0);
    const [alert] = (await session.call('GET', '/app/api/alerts')).body.results;
    expect(alert.channels.email).toMatchObject({ status: 'off', tries: 0, sent_at: null });
    expect(alert.channels.webhook).toMatchObject({ status: 'sent', tries: 1 });
  });

  it('records an alert with no channel at all', async () => {
    const session = await signUp(ctx.url);
    const { endpoint } = await watchedEndpoint(session, ctx.receiver, { silence_minutes: 1 });
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { alert_webhook_url: null });
    await ctx.advanceAndTick(MINUTE + 1000);
    const [alert] = (await session.call('GET', '/app/api/alerts')).body.results;
    expect(alert).toMatchObject({
      kind: 'silence',
      channels: { email: { status: 'off' }, webhook: { status: 'off', url: null } },
      next_try_at: null,
    });
  });
});
