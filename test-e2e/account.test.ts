import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUserPlan } from '../src/store/users.js';
import { type Receiver, startReceiver } from '../test/helpers/receiver.js';
import { screenshotEverywhere, useE2e } from './browser.js';
import {
  createEndpointInBrowser,
  newEmail,
  openSettings,
  saveSettings,
  signUpInBrowser,
} from './flows.js';

describe('alerts and the API key', () => {
  const ctx = useE2e();
  const email = newEmail();
  let alertReceiver: Receiver;
  let endpoint: { id: number; url: string };

  beforeAll(async () => {
    alertReceiver = await startReceiver();
  });
  afterAll(async () => {
    await alertReceiver?.close();
  });

  it('sets a silence alert and lists the alert it sends with its channel outcomes', async () => {
    const { page } = ctx;
    await signUpInBrowser(page, email);
    endpoint = await createEndpointInBrowser(page, 'Nightly export');
    await openSettings(page, endpoint.id);
    await page.getByLabel('Alert me when no request arrives for a while').check();
    // Three seconds: long enough to set, short enough to see it fire here.
    await page.getByLabel('Silence threshold (minutes)').fill('0.05');
    await page.getByLabel('Alert webhook URL (optional)').fill(`${alertReceiver.url}/alerts`);
    await saveSettings(page);
    await page.reload();
    expect(await page.getByLabel('Silence threshold (minutes)').inputValue()).toBe('0.05');
    expect(await page.getByLabel('Alert webhook URL (optional)').inputValue()).toBe(
      `${alertReceiver.url}/alerts`,
    );

    const [notice] = await alertReceiver.waitForRequests(1, 30_000);
    expect(JSON.parse(notice!.body.toString()).text).toContain('Nightly export');
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    const alert = page.locator('.alert', { hasText: 'Nightly export' }).first();
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Silent');
    await expect
      .poll(async () => {
        await page.reload();
        return alert.locator('li', { hasText: 'Webhook' }).textContent();
      })
      .toContain('sent');
    expect(await alert.locator('li', { hasText: 'Email' }).textContent()).toContain('off');
    await screenshotEverywhere(page, 'alerts');
  });

  it('creates an API key, shows it once, and the key reads /api/v1/endpoints/', async () => {
    const { page, service } = ctx;
    expect(await setUserPlan(service.services.store, email, 'startup')).toBe(true);
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByText('You have no API key.').waitFor();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('api-key');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^hw_live_/);
    await page.getByText('it is shown only once').waitFor();
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await screenshotEverywhere(page, 'account');

    const response = await fetch(`${ctx.url}/api/v1/endpoints/`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { count: number; results: Array<{ id: number }> };
    expect(body.count).toBe(1);
    expect(body.results[0]!.id).toBe(endpoint.id);

    await page.reload();
    await page.getByText('You have no API key.').waitFor({ state: 'detached' });
    expect(await page.locator('.facts').last().textContent()).toContain(key.slice(0, 12));
    expect(await page.content()).not.toContain(key);
  });

  it('replaces the key after a confirmation; the old one stops working', async () => {
    const { page } = ctx;
    const old = await page.evaluate('navigator.clipboard.readText()');
    await page.getByRole('button', { name: 'Replace API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace the API key?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Replace key' }).click();
    const fresh = (await page.getByTestId('api-key').textContent()) ?? '';
    expect(fresh).not.toBe(old);
    const refused = await fetch(`${ctx.url}/api/v1/endpoints/`, {
      headers: { authorization: `Bearer ${String(old)}` },
    });
    expect(refused.status).toBe(401);
  });

  it('deletes an endpoint after a confirmation', async () => {
    const { page } = ctx;
    await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
    await page.getByRole('button', { name: 'Delete Nightly export' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoints yet').waitFor();
    const capture = await fetch(endpoint.url, { method: 'POST', body: 'x' });
    expect(capture.status).toBe(404);
  });
});
