import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { screenshotEverywhere, useE2e } from './browser.js';
import {
  createEndpointInBrowser,
  newEmail,
  openSettings,
  saveSettings,
  signUpInBrowser,
} from './flows.js';

const SECRET = 'whsec_e2e_0123456789abcdef0123456789abcdef';

describe('signature verification', () => {
  const ctx = useE2e();
  let endpoint: { id: number; url: string };

  it('shows the API’s validation error next to the field it names', async () => {
    const { page } = ctx;
    await signUpInBrowser(page, newEmail());
    endpoint = await createEndpointInBrowser(page, 'Payments');
    await openSettings(page, endpoint.id);
    await page.getByLabel('Forward every request to my server').check();
    await page.getByLabel('Forwarding URL').fill('ftp://files.example.com/drop');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const error = page.locator('#field-forwarding-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/http/);
    expect(await page.getByLabel('Forwarding URL').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Forward every request to my server').uncheck();
  });

  it('sets Stripe verification with a secret that is never shown again', async () => {
    const { page } = ctx;
    await page.getByLabel('Scheme').selectOption('stripe');
    await page.getByLabel('Signing secret').fill(SECRET);
    await saveSettings(page);
    expect(await page.getByLabel('Signing secret').inputValue()).toBe('');
    expect(await page.getByLabel('Signing secret').getAttribute('placeholder')).toContain(
      'unchanged',
    );
    expect(await page.content()).not.toContain(SECRET);
    await screenshotEverywhere(page, 'settings');
  });

  it('labels a correctly signed request valid and a wrongly signed one invalid, with the reason', async () => {
    const { page } = ctx;
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const payload = JSON.stringify({ id: 'evt_ok', type: 'charge.succeeded' });
    const send = (body: string, secret: string) =>
      fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
        },
        body,
      }).then(async (r) => ((await r.json()) as { event_id: number }).event_id);
    const valid = await send(payload, SECRET);
    const invalid = await send(JSON.stringify({ id: 'evt_forged' }), 'whsec_someone_else');

    const validRow = page.locator('a.event-row', { hasText: `#${valid}` });
    const invalidRow = page.locator('a.event-row', { hasText: `#${invalid}` });
    await validRow.getByText('valid', { exact: true }).waitFor();
    await invalidRow.getByText('invalid: mismatch').waitFor();

    await page.getByLabel('Signature').selectOption('invalid');
    await expect.poll(() => page.locator('a.event-row').count()).toBe(1);
    await invalidRow.click();
    const facts = page.locator('.facts');
    await facts.getByText('the signature does not match the body and secret').waitFor();
    expect(await facts.textContent()).toContain('invalid: mismatch');
    await page.getByText('Requests with an invalid signature are never sent on.').waitFor();

    await page.getByLabel('Signature').selectOption('valid');
    await validRow.click();
    await page.locator('.facts .signature').getByText('valid', { exact: true }).waitFor();
  });
});
