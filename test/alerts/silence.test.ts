import { expect, it } from 'vitest';
import { signUp } from '../helpers/http.js';
import { MINUTE, capture, describeAlerts, watchedEndpoint } from './helpers.js';

describeAlerts('silence alerts', {}, (ctx) => {
  it('alerts once by email and webhook when the threshold passes, and says recovered once', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
      name: 'Payments',
      silence_minutes: 10,
    });
    await capture(endpoint);
    const lastEventAt = ctx.clock.nowMicros();

    await ctx.advanceAndTick(10 * MINUTE - 1000);
    expect(ctx.mailbox.to(session.email)).toHaveLength(0);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);

    await ctx.advanceAndTick(2000);
    const [mail] = ctx.mailbox.to(session.email);
    expect(ctx.mailbox.to(session.email)).toHaveLength(1);
    expect(mail!.subject).toContain('"Payments"');
    expect(mail!.subject).toContain('silent');
    expect(mail!.text).toContain('no requests for 10 minutes');
    expect(mail!.html).toContain('&quot;Payments&quot; is silent');
    expect(mail!.from).toBe('hookwatch@localhost');

    const [post] = ctx.receiver.at(hookPath);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    expect(post!.contentType).toBe('application/json');
    expect(post!.body).toMatchObject({
      kind: 'silence',
      endpoint: endpoint.id,
      endpoint_name: 'Payments',
      since: new Date(lastEventAt / 1000).toISOString(),
      threshold_minutes: 10,
    });
    expect(post!.body.text).toContain('"Payments" is silent');

    // Still silent an hour later: no second notice.
    await ctx.advanceAndTick(60 * MINUTE);
    expect(ctx.mailbox.to(session.email)).toHaveLength(1);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);

    await ctx.advanceAndTick(1000);
    await capture(endpoint);
    const resumedAt = ctx.clock.nowMicros();
    await capture(endpoint);
    await ctx.advanceAndTick(1000);
    await ctx.advanceAndTick(1000);
    const mails = ctx.mailbox.to(session.email);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toMatch(/"Payments" recovered/);
    expect(mails[1]!.text).toContain('recovered');
    const posts = ctx.receiver.at(hookPath);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body).toMatchObject({
      kind: 'silence_recovered',
      endpoint: endpoint.id,
      since: new Date(lastEventAt / 1000).toISOString(),
      recovered_at: new Date(resumedAt / 1000).toISOString(),
    });
    expect(posts[1]!.body.text).toContain('recovered');

    const metrics = await (await fetch(`${ctx.url}/metrics`)).text();
    expect(metrics).toMatch(/hookwatch_alerts_sent_total\{channel="email",outcome="sent"\} [1-9]/);
    expect(metrics).toMatch(
      /hookwatch_alerts_sent_total\{channel="webhook",outcome="sent"\} [1-9]/,
    );

    const list = await session.call('GET', '/app/api/alerts');
    expect(list.status).toBe(200);
    expect(list.body.next).toBeNull();
    expect(list.body.results.map((a: any) => a.kind)).toEqual(['silence_recovered', 'silence']);
    expect(list.body.results[1]).toMatchObject({
      endpoint: endpoint.id,
      endpoint_name: 'Payments',
      threshold_minutes: 10,
      channels: {
        email: { status: 'sent', to: session.email, tries: 1, error: null },
        webhook: { status: 'sent', url: endpoint.alert_webhook_url, tries: 1, error: null },
      },
      next_try_at: null,
    });
  });

  it('counts from when the alert was set when nothing has arrived yet', async () => {
    const session = await signUp(ctx.url);
    const { hookPath } = await watchedEndpoint(session, ctx.receiver, { silence_minutes: 0.5 });
    await ctx.advanceAndTick(29_000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);
    await ctx.advanceAndTick(2000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    expect(ctx.mailbox.to(session.email)[0]!.subject).toContain('no requests for 30 seconds');
  });

  it('sends nothing for a paused endpoint and restarts the clock when it is resumed', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
      silence_minutes: 1,
    });
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { is_active: false });
    await ctx.advanceAndTick(5 * MINUTE);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);

    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { is_active: true });
    await ctx.advanceAndTick(MINUTE - 1000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);
    await ctx.advanceAndTick(2000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    expect(ctx.mailbox.to(session.email)).toHaveLength(1);
  });

  it('holds an open alert while paused and sends the recovered notice after the resume', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
      silence_minutes: 1,
    });
    await ctx.advanceAndTick(MINUTE + 1000);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual(['silence']);

    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { is_active: false });
    await capture(endpoint); // a paused endpoint still captures
    await ctx.advanceAndTick(1000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);

    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { is_active: true });
    await ctx.advanceAndTick(1000);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual([
      'silence',
      'silence_recovered',
    ]);
  });

  it('restarts the clock when the threshold changes, and not when the same value is sent', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
      silence_minutes: 10,
    });
    await ctx.advanceAndTick(8 * MINUTE);
    // Under the old threshold this would fire 2 minutes from now; the new one counts from now.
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { silence_minutes: 5 });
    await ctx.advanceAndTick(4 * MINUTE);
    expect(ctx.receiver.at(hookPath)).toHaveLength(0);
    // The same value again changes nothing: the deadline stays 5 minutes after the change.
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { silence_minutes: 5 });
    await ctx.advanceAndTick(MINUTE + 1000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    expect(ctx.receiver.at(hookPath)[0]!.body.threshold_minutes).toBe(5);
  });

  it('keeps an open alert open across a threshold change until traffic resumes', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
      silence_minutes: 1,
    });
    await ctx.advanceAndTick(MINUTE + 1000);
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { silence_minutes: 2 });
    await ctx.advanceAndTick(3 * MINUTE);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual(['silence']);
    await capture(endpoint);
    await ctx.advanceAndTick(1000);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual([
      'silence',
      'silence_recovered',
    ]);
    // And the new threshold applies from the recovery on.
    await ctx.advanceAndTick(2 * MINUTE);
    expect(ctx.receiver.at(hookPath).map((p) => p.body.kind)).toEqual([
      'silence',
      'silence_recovered',
      'silence',
    ]);
  });

  it('closes an open alert without a recovered notice when the threshold is cleared', async () => {
    const session = await signUp(ctx.url);
    const { endpoint, hookPath } = await watchedEndpoint(session, ctx.receiver, {
      silence_minutes: 1,
    });
    await ctx.advanceAndTick(MINUTE + 1000);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    await session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, { silence_minutes: null });
    await capture(endpoint);
    await ctx.advanceAndTick(10 * MINUTE);
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
    expect(ctx.mailbox.to(session.email)).toHaveLength(1);
  });

  it('keeps the alert history of a deleted endpoint under its name', async () => {
    const session = await signUp(ctx.url);
    const { endpoint } = await watchedEndpoint(session, ctx.receiver, {
      name: 'Old shop',
      silence_minutes: 1,
    });
    await ctx.advanceAndTick(MINUTE + 1000);
    expect((await session.call('DELETE', `/app/api/endpoints/${endpoint.id}`)).status).toBe(204);
    const list = await session.call('GET', '/app/api/alerts');
    expect(list.body.results).toHaveLength(1);
    expect(list.body.results[0]).toMatchObject({
      kind: 'silence',
      endpoint: null,
      endpoint_name: 'Old shop',
    });
  });

  it('retries an email the mail server refused and records each try', async () => {
    const session = await signUp(ctx.url);
    const { hookPath } = await watchedEndpoint(session, ctx.receiver, { silence_minutes: 1 });
    ctx.mailbox.refuseNext(session.email);
    await ctx.advanceAndTick(MINUTE + 1000);
    expect(ctx.mailbox.to(session.email)).toHaveLength(0);
    let [alert] = (await session.call('GET', '/app/api/alerts')).body.results;
    expect(alert.channels.email).toMatchObject({ status: 'pending', tries: 1, sent_at: null });
    expect(alert.channels.email.error).toMatch(/451/);
    expect(alert.channels.webhook).toMatchObject({ status: 'sent', tries: 1 });
    expect(alert.next_try_at).not.toBeNull();

    // Not before the backoff (30 s) is over.
    await ctx.advanceAndTick(20_000);
    expect(ctx.mailbox.to(session.email)).toHaveLength(0);
    await ctx.advanceAndTick(11_000);
    expect(ctx.mailbox.to(session.email)).toHaveLength(1);
    [alert] = (await session.call('GET', '/app/api/alerts')).body.results;
    expect(alert.channels.email).toMatchObject({ status: 'sent', tries: 2 });
    expect(alert.channels.email.error).toMatch(/451/); // the last failure stays on record
    expect(alert.channels.email.sent_at).not.toBeNull();
    expect(alert.next_try_at).toBeNull();
    // The webhook, already delivered, was not sent again.
    expect(ctx.receiver.at(hookPath)).toHaveLength(1);
  });

  it('retries a webhook that answers 500, and gives up after the last try', async () => {
    const session = await signUp(ctx.url);
    const { hookPath } = await watchedEndpoint(session, ctx.receiver, { silence_minutes: 1 });
    ctx.receiver.answerStatus(500);
    try {
      await ctx.advanceAndTick(MINUTE + 1000);
      let [alert] = (await session.call('GET', '/app/api/alerts')).body.results;
      expect(alert.channels.webhook).toMatchObject({ status: 'pending', tries: 1 });
      expect(alert.channels.webhook.error).toMatch(/answered 500: receiver says no/);
      // 30 s, 2 min, 10 min, 1 h, 6 h: six tries in all.
      for (const wait of [30_000, 2 * MINUTE, 10 * MINUTE, 60 * MINUTE, 360 * MINUTE]) {
        await ctx.advanceAndTick(wait + 1000);
      }
      await ctx.advanceAndTick(24 * 60 * MINUTE);
      expect(ctx.receiver.at(hookPath)).toHaveLength(6);
      [alert] = (await session.call('GET', '/app/api/alerts')).body.results;
      expect(alert.channels.webhook).toMatchObject({ status: 'failed', tries: 6 });
      expect(alert.channels.email).toMatchObject({ status: 'sent', tries: 1 });
      expect(alert.next_try_at).toBeNull();
    } finally {
      ctx.receiver.answerStatus(200);
    }
  });

  it('pages the alert list newest first', async () => {
    const session = await signUp(ctx.url);
    const { endpoint } = await watchedEndpoint(session, ctx.receiver, { silence_minutes: 1 });
    await ctx.advanceAndTick(MINUTE + 1000);
    await capture(endpoint);
    await ctx.advanceAndTick(1000);
    await ctx.advanceAndTick(MINUTE + 1000);
    const first = await session.call('GET', '/app/api/alerts?limit=2');
    expect(first.body.results.map((a: any) => a.kind)).toEqual(['silence', 'silence_recovered']);
    expect(first.body.next).toMatch(/\/app\/api\/alerts\?/);
    const next = new URL(first.body.next);
    const second = await session.call('GET', `${next.pathname}${next.search}`);
    expect(second.body.results.map((a: any) => a.kind)).toEqual(['silence']);
    expect(second.body.next).toBeNull();
    expect((await session.call('GET', '/app/api/alerts?limit=0')).status).toBe(400);
    expect((await session.call('GET', '/app/api/alerts?before=yesterday')).status).toBe(400);
  });

  it("shows only the signed-in user's alerts", async () => {
    const alice = await signUp(ctx.url);
    await watchedEndpoint(alice, ctx.receiver, { silence_minutes: 1 });
    const bob = await signUp(ctx.url);
    await ctx.advanceAndTick(MINUTE + 1000);
    expect((await alice.call('GET', '/app/api/alerts')).body.results).toHaveLength(1);
    expect((await bob.call('GET', '/app/api/alerts')).body.results).toHaveLength(0);
  });
});
