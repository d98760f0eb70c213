import { expect, it } from 'vitest';
import { describeService } from '../helpers/service.js';
import { callJson, signUp } from '../helpers/http.js';

describeService('accounts', {}, (ctx) => {
  it('signs up, shows the account, logs out and back in', async () => {
    const session = await signUp(ctx.url, 'Alice@Example.com');
    const me = await session.call('GET', '/app/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'alice@example.com', plan: 'free', api_key: null });

    const logout = await session.call('POST', '/app/api/logout');
    expect(logout.status).toBe(204);
    expect((await session.call('GET', '/app/api/me')).status).toBe(401);

    const login = await callJson(ctx.url, 'POST', '/app/api/login', {
      body: { email: 'alice@example.com', password: 'correct horse battery' },
    });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ id: session.id, email: 'alice@example.com', plan: 'free' });
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it('refuses a taken email with 409', async () => {
    await signUp(ctx.url, 'bob@example.com');
    const again = await callJson(ctx.url, 'POST', '/app/api/signup', {
      body: { email: 'BOB@example.com', password: 'another long one' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('email_taken');
  });

  it('names the problem in bad signups', async () => {
    const cases: Array<[unknown, string]> = [
      [{ password: 'long enough pw' }, 'email'],
      [{ email: 'not-an-email', password: 'long enough pw' }, 'email'],
      [{ email: 'c@example.com' }, 'password'],
      [{ email: 'c@example.com', password: 'short' }, 'password'],
      [{ email: 'c@example.com', password: 12345678901 }, 'password'],
    ];
    for (const [body, field] of cases) {
      const response = await callJson(ctx.url, 'POST', '/app/api/signup', { body });
      expect(response.status).toBe(400);
      expect(response.body.detail).toMatch(new RegExp(`^${field}:`));
    }
    const notJson = await callJson(ctx.url, 'POST', '/app/api/signup', { body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe('invalid_json');
    const form = await callJson(ctx.url, 'POST', '/app/api/signup', {
      body: 'email=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('answers 401 to a wrong password and an unknown email alike', async () => {
    await signUp(ctx.url, 'carol@example.com');
    for (const body of [
      { email: 'carol@example.com', password: 'wrong password!' },
      { email: 'nobody@example.com', password: 'wrong password!' },
    ]) {
      const response = await callJson(ctx.url, 'POST', '/app/api/login', { body });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: 'invalid_credentials',
        detail: 'The email or the password is wrong.',
      });
    }
  });

  it('refuses calls from another origin', async () => {
    const session = await signUp(ctx.url);
    const response = await callJson(ctx.url, 'POST', '/app/api/endpoints', {
      body: { name: 'x' },
      cookie: session.cookie,
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    const crossSite = await callJson(ctx.url, 'GET', '/app/api/me', {
      cookie: session.cookie,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
  });
});
