import { expect, it } from 'vitest';
import { setUserPlan } from '../../src/store/users.js';
import { createEndpoint, signUp } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';
import { apiGet, apiUser, capturedEvent, createKey, rateHeaders, storeEvents } from './client.js';

describeService('REST API keys, plans and statuses', { manualClock: true }, (ctx) => {
  it('creates an hw_live_ key shown once; /me shows only its prefix and times', async () => {
    const session = await signUp(ctx.url);
    const key = await createKey(session);
    expect(key).toMatch(/^hw_live_[0-9A-Za-z]{32,}$/);
    const me = await session.call('GET', '/app/api/me');
    expect(me.body.api_key).toEqual({
      prefix: expect.any(String),
      created_at: expect.stringMatching(/Z$/),
      last_used_at: null,
    });
    expect(key.startsWith(me.body.api_key.prefix)).toBe(true);
    expect(me.body.api_key.prefix.length).toBeLessThan(key.length - 20);
    expect(JSON.stringify(me.body)).not.toContain(key);
    expect(await createKey(session)).not.toBe(key);
  });

  it('revokes the old key at once when the key is replaced', async () => {
    const user = await apiUser(ctx.service);
    expect((await user.get('/api/v1/endpoints/')).status).toBe(200);
    const replacement = await createKey(user.session);
    expect((await user.get('/api/v1/endpoints/')).status).toBe(401);
    const fresh = await apiGet(ctx.url, '/api/v1/endpoints/', `Bearer ${replacement}`);
    expect(fresh.status).toBe(200);
  });

  it('answers 401 with WWW-Authenticate: Bearer and one body for every bad key', async () => {
    const user = await apiUser(ctx.service);
    const revoked = user.key;
    await createKey(user.session);
    const wellFormedUnknown = `hw_live_${'A'.repeat(32)}`;
    const cases: Array<string | undefined> = [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      'Bearer hw_live_short',
      `Bearer hw_test_${'A'.repeat(32)}`,
      `Bearer ${wellFormedUnknown}x`,
      `Bearer ${wellFormedUnknown}`,
      `Bearer ${revoked}`,
      revoked,
    ];
    const bodies = new Set<string>();
    for (const authorization of cases) {
      const answer = await apiGet(ctx.url, '/api/v1/events/', authorization);
      expect(answer.status, String(authorization)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
      expect(answer.body.error).toBe('unauthorized');
      bodies.add(JSON.stringify(answer.body));
    }
    expect(bodies.size).toBe(1);
  });

  it('accepts the scheme in any case, as RFC 6750 allows', async () => {
    const user = await apiUser(ctx.service);
    const answer = await apiGet(ctx.url, '/api/v1/endpoints/', `bearer ${user.key}`);
    expect(answer.status).toBe(200);
  });

  it('answers 403 to a free plan and follows a plan change on the next request', async () => {
    const user = await apiUser(ctx.service, 'free');
    const refused = await user.get('/api/v1/events/');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'plan_without_api', detail: expect.any(String) });
    expect(rateHeaders(refused)).toMatchObject({ limit: '120', remaining: '120' });

    const store = ctx.service.services.store;
    await setUserPlan(store, user.session.email, 'startup');
    expect((await user.get('/api/v1/events/')).status).toBe(200);
    await setUserPlan(store, user.session.email, 'business');
    expect((await user.get('/api/v1/events/')).status).toBe(200);
    await setUserPlan(store, user.session.email, 'free');
    expect((await user.get('/api/v1/events/')).status).toBe(403);
  });

  it('answers 400 naming each malformed parameter, and ignores unknown ones', async () => {
    const user = await apiUser(ctx.service);
    const cases: Array<[string, string]> = [
      ['/api/v1/events/?limit=0', 'limit'],
      ['/api/v1/events/?limit=201', 'limit'],
      ['/api/v1/events/?limit=500', 'limit'],
      ['/api/v1/events/?limit=1.5', 'limit'],
      ['/api/v1/events/?limit=abc', 'limit'],
      ['/api/v1/events/?limit=', 'limit'],
      ['/api/v1/events/?limit=5&limit=6', 'limit'],
      ['/api/v1/events/?before=yesterday', 'before'],
      ['/api/v1/events/?before=2026-13-01T00:00:00Z', 'before'],
      ['/api/v1/events/?endpoint=abc', 'endpoint'],
      ['/api/v1/events/?endpoint=0', 'endpoint'],
      ['/api/v1/events/?endpoint=-1', 'endpoint'],
      ['/api/v1/events/?before_id=5', 'before_id'],
      ['/api/v1/events/abc/', 'id'],
      ['/api/v1/events/0', 'id'],
      ['/api/v1/events/99999999999999999999/', 'id'],
    ];
    for (const [path, parameter] of cases) {
      const answer = await user.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toBe('invalid_request');
      expect(answer.body.detail, path).toMatch(new RegExp(`^${parameter}: `));
      expect(answer.headers.get('x-ratelimit-limit')).toBe('120');
    }
    const ignored = await user.get('/api/v1/events/?colour=blue&limit=3&page=2');
    expect(ignored.status).toBe(200);
    const fine = await user.get('/api/v1/events/?limit=200&before=2026-11-22T10:15:03Z');
    expect(fine.status).toBe(200);
  });

  it('answers 404 to unknown ids, other users’ ids and unknown paths, as JSON', async () => {
    const user = await apiUser(ctx.service);
    const other = await signUp(ctx.url);
    const theirs = await createEndpoint(other, 'not yours');
    for (const path of [
      '/api/v1/events/?endpoint=987654',
      `/api/v1/events/?endpoint=${theirs.id}`,
      '/api/v1/events/987654/',
      '/api/v1/events/987654',
    ]) {
      const answer = await user.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).toEqual({ error: 'not_found', detail: expect.any(String) });
      expect(answer.headers.get('x-ratelimit-remaining')).not.toBeNull();
    }
    for (const path of ['/api/v2/events/', '/api/v1/nothing-here', '/api/']) {
      const answer = await user.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error).toBe('not_found');
    }
  });

  it('answers the same with and without the trailing slash', async () => {
    const user = await apiUser(ctx.service);
    const endpoint = await createEndpoint(user.session);
    const [eventId] = await storeEvents(ctx.service, [
      capturedEvent(endpoint.id, user.session.id, ctx.clock!.nowMicros()),
    ]);
    for (const [a, b] of [
      ['/api/v1/endpoints/', '/api/v1/endpoints'],
      ['/api/v1/events/', '/api/v1/events'],
      [`/api/v1/events/${eventId}/`, `/api/v1/events/${eventId}`],
    ] as const) {
      const [withSlash, without] = [await user.get(a), await user.get(b)];
      expect(withSlash.status, a).toBe(200);
      expect(without.status, b).toBe(200);
      expect(without.body).toEqual(withSlash.body);
    }
  });

  it('records when the key was last used', async () => {
    const user = await apiUser(ctx.service);
    await user.get('/api/v1/endpoints/');
    const me = await user.session.call('GET', '/app/api/me');
    expect(me.body.api_key.last_used_at).toBe(
      new Date(ctx.clock!.nowMicros() / 1000).toISOString(),
    );
  });
});
