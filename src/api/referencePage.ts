import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

/** Scalar's reader, configured for a self-hosted page: nothing is fetched from elsewhere. */
const READER_SETTINGS = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  documentDownloadType: 'json',
};

// The browser is held to our own origin: no CDN, no fonts or proxies from elsewhere.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function escapeAttribute(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

function page(scriptUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Hookwatch REST API reference</title>
  </head>
  <body>
    <noscript>This reference needs JavaScript. The description it shows is at
      <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
    <script id="api-reference" data-url="/api/v1/openapi.json"
      data-configuration="${escapeAttribute(JSON.stringify(READER_SETTINGS))}"></script>
    <script src="${scriptUrl}"></script>
  </body>
</html>
`;
}

/**
 * `GET /docs/api`: the API reference, rendered in the browser by Scalar's standalone
 * bundle, which we serve ourselves from the installed package. Its URL carries a hash
 * of its content, so browsers may keep it for good and still pick up an upgrade.
 */
export function registerReferencePage(app: FastifyInstance): void {
  const bundlePath = require.resolve('@scalar/api-reference/browser/standalone.js');
  let bundle: { body: Buffer; url: string } | null = null;
  const loadBundle = () => {
    if (!bundle) {
      const body = readFileSync(bundlePath);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      bundle = { body, url: `/docs/api/reference.js?v=${hash}` };
    }
    return bundle;
  };

  app.get('/docs/api', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('cache-control', 'no-cache')
      .send(page(loadBundle().url)),
  );
  app.get('/docs/api/reference.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(loadBundle().body),
  );
}
