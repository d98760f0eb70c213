import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { screenshotEverywhere, useE2e } from './browser.js';
import { PASSWORD, createEndpointInBrowser, newEmail, signUpInBrowser } from './flows.js';

function sendRaw(
  url: string,
  method: string,
  headers: Array<[string, string]>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // Raw (array) headers get no defaults: Host and Content-Length are ours to send.
    const all = [
      ['Host', new URL(url).host],
      ...headers,
      ['Content-Length', String(Buffer.byteLength(body))],
    ];
    const req = request(url, { method, headers: all.flat() }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('capturing and inspecting a request', () => {
  const ctx = useE2e();
  const email = newEmail();
  let endpoint: { id: number; url: string };
  let eventId = 0;

  it('signs up, creates an endpoint and shows how to send a first request', async () => {
    const { page } = ctx;
    await signUpInBrowser(page, email);
    await screenshotEverywhere(page, 'endpoints-empty');
    endpoint = await createEndpointInBrowser(page, 'Stripe live');
    expect(endpoint.url).toMatch(new RegExp(`^${ctx.url}/i/[A-Za-z0-9_-]{20,}$`));
    await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
    expect(await page.locator('.empty.teach pre').textContent()).toContain(
      `curl -X POST ${endpoint.url}`,
    );
    await page
      .getByRole('status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    await screenshotEverywhere(page, 'inspector-empty');
  });

  it('copies the capture URL to the clipboard', async () => {
    const { page } = ctx;
    await page.locator('.url-bar').getByRole('button', { name: 'Copy URL' }).click();
    await page.locator('.url-bar').getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(endpoint.url);
  });

  it('shows a request sent by a script within 2 s, without a reload', async () => {
    const { page } = ctx;
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    const marker = await page.evaluate('performance.timeOrigin');
    // node:http keeps header names' case and duplicates as given (fetch would merge them).
    const response = await sendRaw(
      `${copied}/orders/paid?attempt=1&tag=a%20b`,
      'POST',
      [
        ['Content-Type', 'application/json'],
        ['X-Custom-Header', 'first'],
        ['x-custom-header', 'second'],
        ['User-Agent', 'e2e-script/1.0'],
      ],
      '{"id":"evt_1","amount":4200,"currency":"eur"}',
    );
    expect(response.status).toBe(200);
    eventId = (JSON.parse(response.body) as { event_id: number }).event_id;
    const row = page.locator('a.event-row', { hasText: '/orders/paid' });
    await row.waitFor({ timeout: 2000 });
    // The same document: nothing reloaded it.
    expect(await page.evaluate('performance.timeOrigin')).toBe(marker);
    expect(await row.textContent()).toContain(`#${eventId}`);
  });

  it('opens the request with its headers in arrival order and its body', async () => {
    const { page } = ctx;
    await page.locator('a.event-row', { hasText: '/orders/paid' }).click();
    await page.getByRole('heading', { name: /\/orders\/paid/ }).waitFor();
    expect(page.url()).toBe(`${ctx.url}/endpoints/${endpoint.id}/events/${eventId}`);

    const title = await page.locator('.event-title').textContent();
    expect(title).toContain('POST');
    expect(title).toContain('/orders/paid?attempt=1&tag=a%20b');

    const headers = await page
      .locator('table.headers tr')
      .evaluateAll((rows) =>
        rows.map((r) => [r.querySelector('th')?.textContent, r.querySelector('td')?.textContent]),
      );
    const custom = headers.filter(([name]) => name?.toLowerCase() === 'x-custom-header');
    expect(custom).toEqual([
      ['X-Custom-Header', 'first'],
      ['x-custom-header', 'second'],
    ]);
    expect(headers).toContainEqual(['User-Agent', 'e2e-script/1.0']);
    expect(headers).toContainEqual(['Content-Type', 'application/json']);

    const body = page.getByLabel('Request body', { exact: true });
    expect(await body.textContent()).toBe(
      JSON.stringify({ id: 'evt_1', amount: 4200, currency: 'eur' }, null, 2),
    );
    await page.getByRole('button', { name: 'Raw', exact: true }).click();
    expect(await body.textContent()).toBe('{"id":"evt_1","amount":4200,"currency":"eur"}');

    const received = await page.locator('.facts time').first().textContent();
    expect(received).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} UTC$/);
    expect(await page.locator('.facts').textContent()).toContain('127.0.0.1');

    const curl = await page.getByLabel('curl command').textContent();
    expect(curl).toContain(`curl '${endpoint.url}/orders/paid?attempt=1&tag=a%20b'`);
    expect(curl).toContain(`--data-binary '{"id":"evt_1","amount":4200,"currency":"eur"}'`);
    await screenshotEverywhere(page, 'inspector-event');
  });

  it('shows a binary body as hex and base64', async () => {
    const { page } = ctx;
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x41, 0x42]);
    const response = await fetch(endpoint.url, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    const { event_id } = (await response.json()) as { event_id: number };
    await page.locator('a.event-row', { hasText: `#${event_id}` }).click();
    const body = page.getByLabel('Request body', { exact: true });
    await expect.poll(() => body.textContent()).toContain('00 ff 10 80 41 42');
    await page.getByRole('button', { name: 'Base64' }).click();
    expect(await body.textContent()).toBe(bytes.toString('base64'));
  });

  it('filters the list by method', async () => {
    const { page } = ctx;
    await fetch(endpoint.url, { method: 'GET' });
    await page.locator('a.event-row', { hasText: 'GET' }).waitFor();
    await page.getByLabel('Method').selectOption('PUT');
    await expect.poll(() => page.locator('a.event-row').count()).toBe(1);
    expect(await page.locator('a.event-row').textContent()).toContain('PUT');
    await page.getByLabel('Method').selectOption('all');
    await expect.poll(() => page.locator('a.event-row').count()).toBe(3);
  });

  it('is usable from the keyboard', async () => {
    const { page } = ctx;
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.locator('a.event-row').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.locator('a.event-row').first().focus();
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate('document.activeElement.textContent');
    expect(focused).toBe(await page.locator('a.event-row').nth(1).textContent());
    await page.keyboard.press('Enter');
    await page.locator('.event-detail').waitFor();
    expect(page.url()).toMatch(/\/events\/\d+$/);
  });

  it('lists the endpoint with its URL, count and last event', async () => {
    const { page } = ctx;
    await page.getByRole('link', { name: 'Endpoints', exact: true }).first().click();
    const row = page.getByRole('row', { name: /Stripe live/ });
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain(endpoint.url);
    expect(text).toMatch(/just now|ago/);
    expect(await row.locator('td.num').textContent()).toBe('3');
    await screenshotEverywhere(page, 'endpoints');
  });

  it('pages back through older requests', async () => {
    const { page } = ctx;
    for (let i = 0; i < 50; i++) {
      await fetch(`${endpoint.url}/bulk/${i}`, { method: 'POST', body: String(i) });
    }
    await page.goto(`/endpoints/${endpoint.id}`);
    const rows = page.locator('a.event-row');
    await expect.poll(() => rows.count()).toBe(50);
    expect(await rows.first().textContent()).toContain('/bulk/49');
    await page.getByRole('button', { name: 'Load older requests' }).click();
    await expect.poll(() => rows.count()).toBe(53);
    expect(await rows.last().textContent()).toContain('/orders/paid');
    await page.getByRole('button', { name: 'Load older requests' }).waitFor({ state: 'detached' });
  });

  it('filters on the server, so a match older than the loaded page shows', async () => {
    const { page } = ctx;
    await page.goto(`/endpoints/${endpoint.id}`);
    const rows = page.locator('a.event-row');
    await expect.poll(() => rows.count()).toBe(50);
    // The PUT is among the three oldest requests, which the first page did not load.
    expect(await page.locator('a.event-row', { hasText: 'PUT' }).count()).toBe(0);
    await page.getByLabel('Method').selectOption('PUT');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('PUT');
    await page.getByLabel('Signature').selectOption('invalid');
    await page.getByText('No request matches these filters.').waitFor();
    await page.getByLabel('Method').selectOption('all');
    await page.getByLabel('Signature').selectOption('all');
    await expect.poll(() => rows.count()).toBe(50);
  });

  it('logs out, refuses a wrong password with a clear error, and logs back in', async () => {
    const { page } = ctx;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The email or the password is wrong.' })
      .waitFor();
    await screenshotEverywhere(page, 'login');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
  });

  it('sends a user whose session ended to the login page, and back after logging in', async () => {
    const { page, browser } = ctx;
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole('heading', { name: 'Stripe live' }).waitFor();
    // Settled: the event list has loaded and the live feed is open, so no request of this
    // page meets the cleared cookie (which would send it to the login page on its own).
    await page
      .getByRole('status')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    await browser.clearCookies();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('Your session ended. Log in again to continue.').waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/endpoints/${endpoint.id}/settings`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  });
});
