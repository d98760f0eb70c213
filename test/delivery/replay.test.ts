import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEndpoint, signUp, type Session } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { describeService } from '../helpers/service.js';
import { capture, eventDetail, patchEndpoint, runDue, waitFor, waitForAttempt } from './helpers.js';

describeService('replay', { manualClock: true, env: { MAX_BODY_BYTES: '4096' } }, (ctx) => {
  let receiver: Receiver;
  let other: Receiver;
  let session: Session;

  beforeAll(async () => {
    receiver = await startReceiver();
    other = await startReceiver();
    session = await signUp(ctx.url);
  });
  afterAll(async () => {
    await receiver.close();
    await other.close();
  });

  const replay = (eventId: number, body?: unknown) =>
    session.call('POST', `/app/api/events/${eventId}/replay`, body);

  it('sends a delivered event again, same bytes, as the next attempt with trigger replay', async () => {
    const endpoint = await createEndpoint(session, 'replayed');
    await patchEndpoint(session, endpoint.id, { forwarding: `${receiver.url}/hook` });
    const body = Buffer.from([0x00, 0xff, 0x10, 0x80]);
    const eventId = await capture(ctx.url, endpoint.token, {
      rest: '/p?q=1',
      headers: [['X-Original', 'kept']],
      body,
    });
    await waitForAttempt(session, eventId, 1, ['succeeded']);

    const response = await replay(eventId);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({
      attempt: 2,
      trigger: 'replay',
      state: 'scheduled',
      target_url: `${receiver.url}/hook/p?q=1`,
      started_at: null,
    });
    const detail = await waitForAttempt(session, eventId, 2, ['succeeded']);
    expect(detail.forward_status).toBe('delivered');
    expect(detail.attempts).toBe(2);
    const [first, second] = receiver.requests.filter(
      (r) => r.header('x-hookwatch-event-id') === String(eventId),
    );
    expect(second!.body.equals(body)).toBe(true);
    expect(second!.url).toBe('/hook/p?q=1');
    expect(second!.headers).toEqual(first!.headers);
  });

  it('replays to a given target_url as given, even while paused', async () => {
    const endpoint = await createEndpoint(session, 'paused replay');
    await patchEndpoint(session, endpoint.id, { forwarding: receiver.url, is_active: false });
    const eventId = await capture(ctx.url, endpoint.token, {
      rest: '/ignored?for=target',
      body: Buffer.from('{"x":1}'),
    });
    const response = await replay(eventId, { target_url: `${other.url}/exact?as=given` });
    expect(response.status).toBe(202);
    const detail = await waitForAttempt(session, eventId, 2, ['succeeded']);
    expect(other.requests.at(-1)?.url).toBe('/exact?as=given');
    // The held automatic attempt 1 is still waiting for the resume.
    expect(detail.deliveries.map((d: any) => [d.attempt, d.trigger, d.state])).toEqual([
      [1, 'auto', 'scheduled'],
      [2, 'replay', 'succeeded'],
    ]);
    expect(detail.forward_status).toBe('pending');
  });

  it('does not stop or shift the automatic retries of a retrying event', async () => {
    const clock = ctx.clock!;
    const failing = await startReceiver({ status: 503 });
    try {
      const endpoint = await createEndpoint(session, 'retrying replay');
      await patchEndpoint(session, endpoint.id, { forwarding: failing.url });
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      await waitForAttempt(session, eventId, 1, ['failed']);
      const scheduled = await waitFor(async () => {
        const d = await eventDetail(session, eventId);
        return d.deliveries.length === 2 ? d.deliveries[1] : undefined;
      }, 'attempt 2');

      expect((await replay(eventId, { target_url: receiver.url })).status).toBe(202);
      let detail = await waitForAttempt(session, eventId, 3, ['succeeded']);
      expect(detail.forward_status).toBe('retrying');
      expect(detail.deliveries[1]).toMatchObject({
        attempt: 2,
        state: 'scheduled',
        scheduled_at: scheduled.scheduled_at,
      });

      clock.advanceMs(30_000);
      await runDue(ctx.service);
      detail = await waitForAttempt(session, eventId, 2, ['failed']);
      // Attempt 4 is the third automatic one: +2 min, not the fourth offset.
      const fourth = detail.deliveries[3];
      expect(fourth).toMatchObject({ attempt: 4, trigger: 'auto', state: 'scheduled' });
      expect(Date.parse(fourth.scheduled_at) - Date.parse(detail.deliveries[1].finished_at)).toBe(
        120_000,
      );
    } finally {
      await failing.close();
    }
  });

  it('refuses invalid and truncated events, and a replay with nowhere to go, with 409', async () => {
    const endpoint = await createEndpoint(session, 'refusals');
    await patchEndpoint(session, endpoint.id, {
      forwarding: receiver.url,
      verify_scheme: 'github',
      signing_secret: 'it is a secret',
    });
    const invalid = await capture(ctx.url, endpoint.token, {
      headers: [['X-Hub-Signature-256', `sha256=${'0'.repeat(64)}`]],
      body: Buffer.from('{}'),
    });
    let response = await replay(invalid);
    expect(response.status).toBe(409);
    expect(response.body.error).toBe('invalid_event');
    expect(response.body.detail).toMatch(/signature/);

    await patchEndpoint(session, endpoint.id, { verify_scheme: null });
    const truncated = await capture(ctx.url, endpoint.token, { body: Buffer.alloc(5000, 0x61) });
    response = await replay(truncated);
    expect(response.status).toBe(409);
    expect(response.body.error).toBe('truncated_event');
    expect(response.body.detail).toMatch(/5000 bytes/);
    // Not even to a target of the user's choosing.
    expect((await replay(truncated, { target_url: other.url })).status).toBe(409);

    const quiet = await createEndpoint(session, 'no forwarding');
    const unforwarded = await capture(ctx.url, quiet.token, { body: Buffer.from('{}') });
    response = await replay(unforwarded);
    expect(response.status).toBe(409);
    expect(response.body.error).toBe('no_target');
    expect(response.body.detail).toMatch(/target_url/);
    // With a target it goes; the event's own status stays "not forwarded".
    expect((await replay(unforwarded, { target_url: other.url })).status).toBe(202);
    const detail = await waitForAttempt(session, unforwarded, 1, ['succeeded']);
    expect(detail.forward_status).toBeNull();
    expect(detail.deliveries[0].trigger).toBe('replay');

    expect((await eventDetail(session, invalid)).deliveries).toEqual([]);
  });

  it('validates target_url like a forwarding URL', async () => {
    const endpoint = await createEndpoint(session, 'bad targets');
    const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
    for (const [body, pattern] of [
      [{ target_url: 'ftp://example.com/' }, /^target_url: must use http or https/],
      [{ target_url: 'not a url' }, /^target_url: /],
      [{ target_url: 'https://u:p@example.com/' }, /^target_url: must not contain a user name/],
      [{ target_url: 42 }, /^target_url: must be a URL string/],
      [{ url: 'https://example.com/' }, /^url: is not a known field/],
    ] as const) {
      const response = await replay(eventId, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.detail).toMatch(pattern);
    }
    const stranger = await signUp(ctx.url);
    expect(
      (await stranger.call('POST', `/app/api/events/${eventId}/replay`, { target_url: other.url }))
        .status,
    ).toBe(404);
    expect((await eventDetail(session, eventId)).deliveries).toEqual([]);
  });
});

describeService(
  'replay without private targets',
  { env: { HOOKWATCH_ALLOW_PRIVATE_TARGETS: '0' } },
  (ctx) => {
    it('refuses a private target_url with 400 naming target_url', async () => {
      const session = await signUp(ctx.url);
      const endpoint = await createEndpoint(session);
      const eventId = await capture(ctx.url, endpoint.token, { body: Buffer.from('{}') });
      for (const target of ['http://127.0.0.1:9/', 'http://[::1]/', 'http://localhost/x']) {
        const response = await session.call('POST', `/app/api/events/${eventId}/replay`, {
          target_url: target,
        });
        expect(response.status, target).toBe(400);
        expect(response.body.detail).toMatch(/^target_url: /);
      }
    });
  },
);
