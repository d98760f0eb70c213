import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../test/helpers/receiver.js';
import { screenshotEverywhere, useE2e } from './browser.js';
import {
  createEndpointInBrowser,
  newEmail,
  openSettings,
  saveSettings,
  signUpInBrowser,
} from './flows.js';

describe('forwarding and replay', () => {
  const ctx = useE2e();
  let receiver: Receiver;
  let endpoint: { id: number; url: string };

  beforeAll(async () => {
    receiver = await startReceiver({ status: 200, body: '{"received":true}' });
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('forwards to the receiver and shows the attempt’s 200 live', async () => {
    const { page } = ctx;
    await signUpInBrowser(page, newEmail());
    endpoint = await createEndpointInBrowser(page, 'Shop orders');
    await openSettings(page, endpoint.id);
    await page.getByLabel('Forward every request to my server').check();
    await page.getByLabel('Forwarding URL').fill(`${receiver.url}/hook`);
    await saveSettings(page);

    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // Bytes a re-encoding would change: CRLF, a BOM-less UTF-8 accent, trailing spaces.
    const body = Buffer.from('{"order":"é-42",\r\n "note":"  spaced  "}\n', 'utf8');
    const response = await fetch(`${endpoint.url}/orders?shop=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shop-topic': 'orders/create' },
      body,
    });
    const { event_id } = (await response.json()) as { event_id: number };
    const [first] = await receiver.waitForRequests(1);
    expect(first!.body.equals(body)).toBe(true);
    expect(first!.url).toBe('/hook/orders?shop=1');

    const row = page.locator('a.event-row', { hasText: `#${event_id}` });
    await row.getByText('delivered').waitFor();
    await row.click();
    const attempts = page.getByRole('list', { name: 'Delivery attempts' }).getByRole('listitem');
    await attempts.first().getByText('HTTP 200').waitFor();
    expect(await attempts.first().textContent()).toContain('succeeded');
    expect(await attempts.first().textContent()).toContain(`${receiver.url}/hook/orders?shop=1`);
  });

  it('replays the same bytes on Replay and shows the second attempt', async () => {
    const { page } = ctx;
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await page.getByText(/Replay queued as attempt #2/).waitFor();
    const [first, second] = await receiver.waitForRequests(2);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(second!.header('x-shop-topic')).toBe('orders/create');
    const attempts = page.getByRole('list', { name: 'Delivery attempts' }).getByRole('listitem');
    await expect.poll(() => attempts.count()).toBe(2);
    await attempts.nth(1).getByText('HTTP 200').waitFor();
    expect(await attempts.nth(1).textContent()).toContain('replay');
  });

  it('shows the forwarding target and its health in the endpoint list', async () => {
    const { page } = ctx;
    await screenshotEverywhere(page, 'inspector-deliveries');
    await page.getByRole('link', { name: 'Endpoints', exact: true }).first().click();
    const row = page.getByRole('row', { name: /Shop orders/ });
    await row.getByText('healthy').waitFor();
    expect(await row.textContent()).toContain(`${receiver.url}/hook`);
    await page.goBack();
    await page.getByRole('list', { name: 'Delivery attempts' }).waitFor();
  });

  it('replays to a URL typed in', async () => {
    const { page } = ctx;
    await page.getByLabel('Replay to another URL').fill(`${receiver.url}/elsewhere`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const requests = await receiver.waitForRequests(3);
    expect(requests[2]!.url).toBe('/elsewhere');
    const attempts = page.getByRole('list', { name: 'Delivery attempts' }).getByRole('listitem');
    await expect.poll(() => attempts.count()).toBe(3);
  });

  it('gives a curl command that sends the same bytes again', async () => {
    const { page } = ctx;
    await page.getByRole('button', { name: 'Forwarding URL', exact: true }).click();
    const command = (await page.getByLabel('curl command').textContent()) ?? '';
    expect(command).toContain(`'${receiver.url}/hook/orders?shop=1'`);
    const before = receiver.requests.length;
    await promisify(execFile)('bash', ['-c', `${command} --silent --output /dev/null`]);
    const requests = await receiver.waitForRequests(before + 1);
    const [original, again] = [requests[0]!, requests[before]!];
    expect(again.body.equals(original.body)).toBe(true);
    expect(again.method).toBe('POST');
    expect(again.header('x-shop-topic')).toBe('orders/create');
    expect(again.header('content-type')).toBe('application/json');
  });

  it('shows a failed attempt with its next retry, and cancels the retries', async () => {
    const { page } = ctx;
    receiver.answer({ status: 503, body: 'down for maintenance' });
    const response = await fetch(endpoint.url, { method: 'POST', body: 'failing' });
    const { event_id } = (await response.json()) as { event_id: number };
    const row = page.locator('a.event-row', { hasText: `#${event_id}` });
    await row.getByText('retrying').waitFor();
    await row.click();
    const attempts = page.getByRole('list', { name: 'Delivery attempts' }).getByRole('listitem');
    await attempts.first().getByText('HTTP 503').waitFor();
    await attempts
      .nth(1)
      .getByText(/next try in/)
      .waitFor();
    await page.getByRole('button', { name: 'Cancel retries' }).click();
    await page.getByText('Retries cancelled.').waitFor();
    await attempts.nth(1).getByText('cancelled').waitFor();
    await row.getByText('cancelled').waitFor();
    receiver.answer({ status: 200, body: 'ok' });
  });
});
