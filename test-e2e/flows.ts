// What a user does over and over in these tests, done through the UI only.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export const PASSWORD = 'correct horse battery';

export function newEmail(): string {
  return `e2e-${randomBytes(4).toString('hex')}@example.com`;
}

export async function signUpInBrowser(page: Page, email: string): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
}

/** Creates an endpoint from the list page; ends on its (empty) inspector. Returns its URL. */
export async function createEndpointInBrowser(
  page: Page,
  name: string,
): Promise<{ id: number; url: string }> {
  await page.goto('/');
  await page.getByLabel('New endpoint').fill(name);
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  const id = Number(/\/endpoints\/(\d+)/.exec(page.url())?.[1]);
  expect(id).toBeGreaterThan(0);
  const url = (await page.locator('.url-bar .capture-url').textContent()) ?? '';
  return { id, url };
}

export async function openSettings(page: Page, endpointId: number): Promise<void> {
  await page.goto(`/endpoints/${endpointId}/settings`);
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
}

export async function saveSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Settings saved.').waitFor();
}
