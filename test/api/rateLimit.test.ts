import { expect, it } from 'vitest';
import { setUserPlan } from '../../src/store/users.js';
import { describeService } from '../helpers/service.js';
import { type ApiUser, apiGet, apiUser, rateHeaders } from './client.js';

/** `count` admitted requests, one after another, each expected to pass. */
async function spend(user: ApiUser, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await user.get('/api/v1/endpoints/');
    expect(answer.status, `request ${i + 1}`).toBe(200);
  }
}

describeService('REST API rate limit', { manualClock: true }, (ctx) => {
  const nowSeconds = () => ctx.clock!.nowMicros() / 1_000_000;

  it('refuses the 121st request in a minute with 429 and Retry-After; after waiting, the next passes', async () => {
    const user = await apiUser(ctx.service);
    const start = nowSeconds();
    for (let i = 1; i <= 120; i++) {
      const answer = await user.get('/api/v1/endpoints/');
      expect(answer.status).toBe(200);
      expect(rateHeaders(answer)).toMatchObject({
        limit: '120',
        remaining: String(120 - i),
        reset: String(Math.ceil(start + 60)),
      });
      if (i === 40 || i === 80) ctx.clock!.advanceMs(10_000);
    }
    // 120 used over the last 20 s: the first frees its slot 60 s after it was admitted.
    const refused = await user.get('/api/v1/endpoints/');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'rate_limited', detail: expect.any(String) });
    expect(rateHeaders(refused)).toEqual({
      limit: '120',
      remaining: '0',
      reset: String(Math.ceil(start + 60)),
      retryAfter: '40',
    });

    ctx.clock!.advanceMs(39_000);
    const stillRefused = await user.get('/api/v1/endpoints/');
    expect(stillRefused.status).toBe(429);
    expect(stillRefused.headers.get('retry-after')).toBe('1');

    ctx.clock!.advanceMs(1_000);
    const passes = await user.get('/api/v1/endpoints/');
    expect(passes.status).toBe(200);
    // The 40 admitted in the first second have left; 80 plus this one remain counted.
    expect(rateHeaders(passes).remaining).toBe('39');
  });

  it('is a rolling window: no burst of 240 across a minute boundary', async () => {
    const user = await apiUser(ctx.service);
    ctx.clock!.advanceMs(59_000);
    await spend(user, 120);
    ctx.clock!.advanceMs(2_000); // a fixed window would have reset here
    const refused = await user.get('/api/v1/endpoints/');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(58);
  });

  it('spends no budget on 401, 403 and 429 answers, and spends it on 400 and 404', async () => {
    const user = await apiUser(ctx.service);
    const remaining = async (path: string) => rateHeaders(await user.get(path)).remaining;
    expect(await remaining('/api/v1/endpoints/')).toBe('119');
    expect(await remaining('/api/v1/events/?limit=0')).toBe('118');
    expect(await remaining('/api/v1/events/424242/')).toBe('117');

    for (let i = 0; i < 3; i++) {
      expect((await apiGet(ctx.url, '/api/v1/endpoints/', `Bearer ${user.key}x`)).status).toBe(401);
    }
    await setUserPlan(ctx.service.services.store, user.session.email, 'free');
    const forbidden = await user.get('/api/v1/endpoints/');
    expect(forbidden.status).toBe(403);
    expect(rateHeaders(forbidden).remaining).toBe('117');
    await setUserPlan(ctx.service.services.store, user.session.email, 'startup');
    expect(await remaining('/api/v1/endpoints/')).toBe('116');

    await spend(user, 116);
    for (let i = 0; i < 5; i++) expect((await user.get('/api/v1/endpoints/')).status).toBe(429);
    ctx.clock!.advanceMs(60_000);
    const back = await user.get('/api/v1/endpoints/');
    expect(back.status).toBe(200);
    expect(rateHeaders(back).remaining).toBe('119');
  });

  it('keeps one budget per key: another user is not slowed by this one', async () => {
    const busy = await apiUser(ctx.service);
    const calm = await apiUser(ctx.service);
    await spend(busy, 120);
    expect((await busy.get('/api/v1/endpoints/')).status).toBe(429);
    const answer = await calm.get('/api/v1/endpoints/');
    expect(answer.status).toBe(200);
    expect(rateHeaders(answer).remaining).toBe('119');
  });

  it('serves /api/v1/openapi.json without a key and outside the budget', async () => {
    const user = await apiUser(ctx.service);
    await spend(user, 120);
    for (const authorization of [undefined, `Bearer ${user.key}`]) {
      const answer = await apiGet(ctx.url, '/api/v1/openapi.json', authorization);
      expect(answer.status).toBe(200);
      expect(answer.body.openapi).toBe('3.1.0');
      expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
    }
  });
});
