import { expect, it } from 'vitest';
import { callJson, signUp } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';

describeService('login and signup throttling', { manualClock: true }, (ctx) => {
  const login = (email: string, password: string) =>
    callJson(ctx.url, 'POST', '/app/api/login', { body: { email, password } });

  it('refuses an account after 10 failed logins in 15 minutes, then lets it in again', async () => {
    const session = await signUp(ctx.url);
    for (let i = 0; i < 10; i++) {
      expect((await login(session.email, 'wrong password!')).status).toBe(401);
    }
    const refused = await login(session.email, 'correct horse battery');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('too_many_attempts');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    ctx.clock!.advanceMs(15 * 60 * 1000 + 1000);
    expect((await login(session.email, 'correct horse battery')).status).toBe(200);
  });

  it('limits signups to 20 a minute from one address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const response = await callJson(ctx.url, 'POST', '/app/api/signup', {
        body: { email: `flood-${i}@example.com`, password: 'long enough password' },
      });
      statuses.push(response.status);
    }
    // One signup already came from this address in the test before.
    expect(statuses.filter((s) => s === 201).length).toBe(19);
    const last = await callJson(ctx.url, 'POST', '/app/api/signup', {
      body: { email: 'one-more@example.com', password: 'long enough password' },
    });
    expect(last.status).toBe(429);
    expect(last.body.error).toBe('too_many_requests');
    expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
