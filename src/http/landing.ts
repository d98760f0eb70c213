import type { FastifyInstance } from 'fastify';

/** What Hookwatch is and how to start, until the dashboard is built (DESIGN §8). */
export function registerLandingPage(app: FastifyInstance, baseUrl: string): void {
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hookwatch</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem}
code,pre{background:#f3f3f3;padding:.1rem .3rem;border-radius:4px}pre{padding:1rem;overflow:auto}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}code,pre{background:#222}}</style></head>
<body><h1>Hookwatch</h1>
<p>Hookwatch captures incoming webhooks: it stores every request in full, checks its signature,
forwards it to your server with durable retries, alerts you when an endpoint goes silent, and
replays any request byte for byte.</p>
<h2>Start</h2>
<pre>curl -c jar -H 'content-type: application/json' \\
  -d '{"email":"you@example.com","password":"a long password"}' ${baseUrl}/app/api/signup
curl -b jar -H 'content-type: application/json' -d '{"name":"Stripe"}' ${baseUrl}/app/api/endpoints
curl -d '{"hello":"world"}' ${baseUrl}/i/&lt;token&gt;</pre>
<p>Health: <a href="/healthz">/healthz</a> · Metrics: <a href="/metrics">/metrics</a></p>
</body></html>`;
  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
}
