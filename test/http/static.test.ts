import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandler } from '../../src/http/errors.js';
import { registerDashboard } from '../../src/http/static.js';

const INDEX =
  '<!doctype html><title>Hookwatch</title><script src="/assets/index-AbC123.js"></script>';
const SCRIPT = 'console.log("dashboard");'.repeat(40);

async function buildApp(webRoot: string): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandler(app);
  app.get('/healthz', async () => ({ ok: true }));
  // A scoped 404 under /api, as the REST API has: the SPA fallback must not shadow it.
  await app.register(
    async (scope) => {
      scope.get('/v1/endpoints/', async () => ({ count: 0, results: [] }));
      scope.setNotFoundHandler((_request, reply) =>
        reply.code(404).send({ error: 'not_found', detail: 'scoped api 404' }),
      );
    },
    { prefix: '/api' },
  );
  await registerDashboard(app, 'http://localhost:8080', webRoot);
  await app.ready();
  return app;
}

describe('serving the dashboard', () => {
  let dir: string;
  let app: FastifyInstance;
  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookwatch-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), SCRIPT);
    writeFileSync(join(dir, 'assets', 'index-AbC123.js.gz'), gzipSync(SCRIPT));
    app = await buildApp(dir);
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / and asks browsers to revalidate it', async () => {
    const response = await app.inject({ url: '/', headers: html });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toBe(INDEX);
  });

  it('caches hashed assets for a year as immutable', async () => {
    const response = await app.inject({ url: '/assets/index-AbC123.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.body).toBe(SCRIPT);
  });

  it('sends the precompressed asset to a client that accepts gzip', async () => {
    const response = await app.inject({
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.rawPayload.equals(gzipSync(SCRIPT))).toBe(true);
  });

  it('answers a missing asset with a JSON 404, not the app', async () => {
    const response = await app.inject({ url: '/assets/gone-123.js', headers: html });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toBe('not_found');
  });

  it('answers page URLs with index.html for client-side routing', async () => {
    for (const url of ['/endpoints/12', '/endpoints/12/settings?x=1', '/account', '/login']) {
      const response = await app.inject({ url, headers: html });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe(INDEX);
      expect(response.headers['cache-control'], url).toBe('no-cache');
    }
  });

  it('keeps JSON 404s for API paths, non-HTML clients and other methods', async () => {
    const api = await app.inject({ url: '/api/v2/things', headers: html });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ error: 'not_found', detail: 'scoped api 404' });
    for (const url of ['/app/api/nothing', '/i/unknown', '/docs/x', '/metrics/x']) {
      const response = await app.inject({ url, headers: html });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error, url).toBe('not_found');
    }
    const script = await app.inject({ url: '/endpoints/12', headers: { accept: '*/*' } });
    expect(script.statusCode).toBe(404);
    const post = await app.inject({ method: 'POST', url: '/endpoints/12', headers: html });
    expect(post.statusCode).toBe(404);
  });

  it('leaves other routes alone whatever the client accepts', async () => {
    expect((await app.inject({ url: '/healthz', headers: html })).json()).toEqual({ ok: true });
    const api = await app.inject({ url: '/api/v1/endpoints/', headers: html });
    expect(api.json()).toEqual({ count: 0, results: [] });
  });
});

describe('a checkout built without the web', () => {
  it('falls back to the landing page', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'hookwatch-noweb-'));
    const app = Fastify();
    installErrorHandler(app);
    expect(await registerDashboard(app, 'http://localhost:8080', empty)).toBe('landing');
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Hookwatch');
    await app.close();
    rmSync(empty, { recursive: true, force: true });
  });
});
