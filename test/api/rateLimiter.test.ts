import { expect, it } from 'vitest';
import { createRateLimiter, retryAfterSeconds } from '../../src/api/rateLimit.js';
import { replaceApiKey } from '../../src/store/apiKeys.js';
import { createUser } from '../../src/store/users.js';
import { describeEachDialect } from '../helpers/db.js';

const SECOND = 1_000_000;
const policy = { max: 5, windowMicros: 10 * SECOND };

describeEachDialect('API sliding log', (ctx) => {
  let next = 0;
  async function newKeyId(): Promise<number> {
    next += 1;
    const user = await createUser(ctx.store, {
      email: `limit-${next}@example.com`,
      passwordHash: 'x',
      plan: 'startup',
      now: 0,
    });
    const key = await replaceApiKey(ctx.store, {
      userId: user!.id,
      prefix: 'hw_live_x',
      keyHash: `hash-${next}`,
      now: 0,
    });
    return key.id;
  }

  it('admits max requests in a window, then refuses without recording the refusal', async () => {
    const limiter = createRateLimiter(ctx.store, policy);
    const keyId = await newKeyId();
    const t0 = 1_000 * SECOND;
    for (let i = 1; i <= 5; i++) {
      expect(await limiter.take(keyId, t0 + i * SECOND)).toEqual({
        admitted: true,
        used: i,
        oldest: t0 + SECOND,
      });
    }
    for (let i = 0; i < 3; i++) {
      expect(await limiter.take(keyId, t0 + 6 * SECOND)).toEqual({
        admitted: false,
        used: 5,
        oldest: t0 + SECOND,
      });
    }
    const usage = await limiter.peek(keyId, t0 + 6 * SECOND);
    expect(usage).toEqual({ used: 5, oldest: t0 + SECOND });
    expect(retryAfterSeconds(policy, usage, t0 + 6 * SECOND)).toBe(5);
  });

  it('frees one slot as each admitted request leaves the window', async () => {
    const limiter = createRateLimiter(ctx.store, policy);
    const keyId = await newKeyId();
    const t0 = 2_000 * SECOND;
    for (let i = 0; i < 5; i++) await limiter.take(keyId, t0 + i * SECOND);
    // At t0 + 10 s the first leaves: exactly one more is admitted.
    expect((await limiter.take(keyId, t0 + 10 * SECOND - 1)).admitted).toBe(false);
    expect((await limiter.take(keyId, t0 + 10 * SECOND)).admitted).toBe(true);
    expect((await limiter.take(keyId, t0 + 10 * SECOND)).admitted).toBe(false);
    expect(await limiter.peek(keyId, t0 + 10 * SECOND)).toEqual({ used: 5, oldest: t0 + SECOND });
    expect(await limiter.peek(keyId, t0 + 100 * SECOND)).toEqual({ used: 0, oldest: null });
  });

  it('keeps separate logs per key and counts requests at the same microsecond', async () => {
    const limiter = createRateLimiter(ctx.store, policy);
    const [a, b] = [await newKeyId(), await newKeyId()];
    const t0 = 3_000 * SECOND;
    for (let i = 0; i < 5; i++) expect((await limiter.take(a, t0)).admitted).toBe(true);
    expect((await limiter.take(a, t0)).admitted).toBe(false);
    expect(await limiter.take(b, t0)).toEqual({ admitted: true, used: 1, oldest: t0 });
  });
});
