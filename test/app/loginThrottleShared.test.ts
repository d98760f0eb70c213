import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import { deleteExpiredLoginFailures, takeLoginAttempt } from '../../src/store/loginFailures.js';
import { type TestDatabase, createTestDatabase, pgAvailable } from '../helpers/db.js';
import { callJson, signUp } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const MINUTE = 60 * 1_000_000;

// DESIGN §1: rate-limit counters live in the database, so instances behind a load
// balancer share one budget of failed logins per account.
(pgAvailable() ? describe : describe.skip)('failed logins across instances', () => {
  let database: TestDatabase;
  let first: RunningService;
  let second: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // Behind a proxy, so each attempt can come from another address (X-Forwarded-For).
    const options = { env: { TRUST_PROXY: '1' } };
    [first, second] = await Promise.all([
      startTestService(database, options),
      startTestService(database, options),
    ]);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.drop();
  });

  // Each attempt from another address, as a spread-out attacker's would be: the
  // per-address limit (20 a minute) must not be what stops them here.
  let address = 0;
  const login = (service: RunningService, email: string, password: string) =>
    callJson(service.url, 'POST', '/app/api/login', {
      body: { email, password },
      headers: { 'x-forwarded-for': `198.51.100.${(address++ % 250) + 1}` },
    });

  it('counts failures on every instance against one budget', async () => {
    const session = await signUp(first.url);
    for (let i = 0; i < 10; i++) {
      const instance = i % 2 === 0 ? first : second;
      expect((await login(instance, session.email, 'wrong password!')).status).toBe(401);
    }
    for (const instance of [first, second]) {
      const refused = await login(instance, session.email, 'correct horse battery');
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('too_many_attempts');
    }
  });

  it('lets only ten of many simultaneous attempts through', async () => {
    const session = await signUp(first.url);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        login(i % 2 === 0 ? first : second, session.email, 'wrong password!').then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it('clears the log on a right password, and the sweep drops logs that aged out', async () => {
    const session = await signUp(first.url);
    for (let i = 0; i < 9; i++) await login(second, session.email, 'wrong password!');
    const ok = await login(first, session.email, 'correct horse battery');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    // Afresh: ten more failures are allowed before a refusal.
    for (let i = 0; i < 10; i++) {
      expect((await login(first, session.email, 'wrong password!')).status).toBe(401);
    }
    expect((await login(second, session.email, 'wrong password!')).status).toBe(429);

    const store = first.services.store;
    const window = { windowMicros: 15 * MINUTE, max: 10 };
    const t0 = 1_000 * MINUTE;
    await takeLoginAttempt(store, { email: 'made-up@example.com', now: t0, ...window });
    expect(await deleteExpiredLoginFailures(store, t0 + 15 * MINUTE - 1)).toBe(0);
    expect(await deleteExpiredLoginFailures(store, t0 + 15 * MINUTE)).toBeGreaterThanOrEqual(1);
    const again = await takeLoginAttempt(store, {
      email: 'made-up@example.com',
      now: t0 + 16 * MINUTE,
      ...window,
    });
    expect(again).toEqual({ admitted: true, oldest: t0 + 16 * MINUTE });
  });

  it('counts one address against one budget of 20 a minute on every instance', async () => {
    const from = (service: RunningService, path: string, body: unknown) =>
      callJson(service.url, 'POST', path, {
        body,
        headers: { 'x-forwarded-for': '203.0.113.7' },
      }).then((r) => `${r.status} ${r.body?.error ?? ''}`);
    const statuses: string[] = [];
    for (let i = 0; i < 20; i++) {
      const instance = i % 2 === 0 ? first : second;
      statuses.push(
        await from(instance, '/app/api/login', { email: `n${i}@example.com`, password: 'x' }),
      );
    }
    expect(statuses.every((s) => s === '401 invalid_credentials')).toBe(true);
    for (const instance of [first, second]) {
      const refused = await from(instance, '/app/api/login', {
        email: 'one-more@example.com',
        password: 'x',
      });
      expect(refused).toBe('429 too_many_requests');
    }
    // Signups count apart from logins, as each route has its own budget.
    expect(
      await from(first, '/app/api/signup', {
        email: 'spread@example.com',
        password: 'long enough password',
      }),
    ).toBe('201 ');
  });

  it('refuses until the oldest failure in the window ages out', async () => {
    const store = first.services.store;
    const window = { windowMicros: 15 * MINUTE, max: 10 };
    const email = 'window@example.com';
    for (let i = 0; i < 10; i++) {
      const taken = await takeLoginAttempt(store, { email, now: i * MINUTE, ...window });
      expect(taken.admitted).toBe(true);
    }
    expect(await takeLoginAttempt(store, { email, now: 10 * MINUTE, ...window })).toEqual({
      admitted: false,
      oldest: 0,
    });
    // At 15 minutes the first failure (at 0) no longer counts: one more goes through.
    const later = await takeLoginAttempt(store, { email, now: 15 * MINUTE, ...window });
    expect(later).toEqual({ admitted: true, oldest: 1 * MINUTE });
    expect((await takeLoginAttempt(store, { email, now: 15 * MINUTE, ...window })).admitted).toBe(
      false,
    );
  });
});
