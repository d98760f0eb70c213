// Drives Debian's Chromium with playwright-core: no browser download, a fresh profile per
// suite, and a real service (SQLite) per suite started by the same code `hookwatch serve` runs.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RunningService } from '../src/service.js';
import { type TestDatabase, createTestDatabase } from '../test/helpers/db.js';
import { startTestService } from '../test/helpers/service.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface E2eContext {
  readonly service: RunningService;
  /** BASE_URL of the service: the dashboard's origin (CSRF checks compare against it). */
  readonly url: string;
  readonly browser: BrowserContext;
  readonly page: Page;
}

/** A service and a browser for the suite: started before its tests, stopped after. */
export function useE2e(options: { env?: Record<string, string> } = {}): E2eContext {
  let service: RunningService | undefined;
  let database: TestDatabase | undefined;
  let browser: BrowserContext | undefined;
  let page: Page | undefined;
  let profile: string | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    service = await startTestService(database, { env: options.env });
    profile = mkdtempSync(join(tmpdir(), 'hookwatch-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: LAPTOP,
      baseURL: service.url,
    });
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(service.url).origin,
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(10_000);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await database?.drop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} not started`);
    return value;
  };
  return {
    get service() {
      return need(service, 'service');
    },
    get url() {
      return need(service, 'service').url;
    },
    get browser() {
      return need(browser, 'browser');
    },
    get page() {
      return need(page, 'page');
    },
  };
}

/** Every visible form control has a label a screen reader can read out. */
export async function expectEveryControlLabelled(page: Page): Promise<void> {
  const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden' && el.labels.length === 0
      && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    .map((el) => el.outerHTML)`);
  expect(unlabelled).toEqual([]);
}

/**
 * Saves the page as it looks in light and dark, at laptop and phone width
 * (test-results/screenshots/<name>-<scheme>-<width>.png), then restores light/laptop.
 * Each main page passes through here, so it also checks that its controls are labelled.
 */
export async function screenshotEverywhere(page: Page, name: string): Promise<void> {
  await expectEveryControlLabelled(page);
  // From the top, nothing focused: a sticky header otherwise lands mid-page in a full-page shot.
  await page.evaluate('document.activeElement?.blur(); window.scrollTo(0, 0)');
  for (const [size, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({
        path: join(SCREENSHOTS, `${name}-${scheme}-${size}.png`),
        fullPage: true,
      });
    }
  }
  await page.setViewportSize(LAPTOP);
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
}

export function clearScreenshots(): void {
  rmSync(SCREENSHOTS, { recursive: true, force: true });
}
