import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerLandingPage } from './landing.js';

/**
 * Where `npm run build:web` puts the dashboard: dist/web at the package root. This file
 * sits two levels below the root both as source (src/http) and compiled (dist/http).
 */
export const WEB_ROOT = fileURLToPath(new URL('../../dist/web/', import.meta.url));

/** Paths that are never dashboard pages: an unknown URL there is a JSON 404, not the app. */
const NOT_PAGES = ['/api', '/app/api', '/i', '/docs', '/assets', '/healthz', '/readyz', '/metrics'];

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0]!;
  return path === '' ? '/' : path;
}

/** A browser navigating to a dashboard URL: a GET that accepts HTML, outside the API paths. */
export function isPageRequest(req: Pick<IncomingMessage, 'headers' | 'url'>): boolean {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('text/html')) return false;
  const path = pathOf(req.url);
  return !NOT_PAGES.some((p) => path === p || path.startsWith(`${p}/`));
}

async function sendIndex(reply: FastifyReply, indexPath: string): Promise<void> {
  // Read per request: a rebuild while the service runs serves the new asset names at once.
  const html = await readFile(indexPath);
  await reply
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * The dashboard SPA from dist/web: hashed assets cached for a year, index.html always
 * revalidated, and every other page URL answered with index.html (client-side routing).
 * A checkout built without the web (`npm run build:server` only) gets the landing page.
 */
export async function registerDashboard(
  app: FastifyInstance,
  baseUrl: string,
  webRoot: string = WEB_ROOT,
): Promise<'dashboard' | 'landing'> {
  const indexPath = join(webRoot, 'index.html');
  if (!existsSync(indexPath)) {
    registerLandingPage(app, baseUrl);
    return 'landing';
  }

  await app.register(fastifyStatic, {
    root: join(webRoot, 'assets'),
    prefix: '/assets/',
    // File names carry a content hash: a changed file is a new URL.
    maxAge: '365d',
    immutable: true,
    index: false,
    // The build writes .br and .gz beside each asset.
    preCompressed: true,
  });

  // The SPA fallback is a route that matches only page requests (a router constraint),
  // so any other unknown URL falls through to the JSON 404 handlers, scoped ones included.
  app.addConstraintStrategy({
    name: 'dashboardPage',
    storage() {
      const handlers = new Map<string, unknown>();
      return {
        get: (value: string) => handlers.get(value) ?? null,
        set: (value: string, handler: unknown) => void handlers.set(value, handler),
      } as never;
    },
    deriveConstraint: (req: IncomingMessage) => (isPageRequest(req) ? 'page' : 'other'),
    mustMatchWhenDerived: false,
  });
  app.get('/', async (_request, reply) => sendIndex(reply, indexPath));
  app.get('/*', { constraints: { dashboardPage: 'page' } }, async (_request, reply) =>
    sendIndex(reply, indexPath),
  );
  return 'dashboard';
}
