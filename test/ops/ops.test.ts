import { expect, it } from 'vitest';
import { createEndpoint, signUp } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';

describeService('operations endpoints', {}, (ctx) => {
  it('answers /healthz and /readyz', async () => {
    expect(await (await fetch(`${ctx.url}/healthz`)).json()).toEqual({ ok: true });
    const ready = await fetch(`${ctx.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, database: ctx.dialect });
  });

  it('counts captures and their latency in /metrics', async () => {
    const session = await signUp(ctx.url);
    const endpoint = await createEndpoint(session);
    for (let i = 0; i < 3; i++)
      await fetch(`${ctx.url}/i/${endpoint.token}`, { method: 'POST', body: 'x' });
    // At once, so batches hold several: each capture counts, not each batch.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${ctx.url}/i/${endpoint.token}`, { method: 'POST', body: 'y' }),
      ),
    );
    const response = await fetch(`${ctx.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/^hookwatch_captures_total\{outcome="stored"\} 23$/m);
    expect(text).toMatch(/^hookwatch_capture_duration_seconds_count 23$/m);
    expect(Number(/^hookwatch_capture_batch_size_count (\d+)$/m.exec(text)?.[1])).toBeLessThan(23);
    expect(text).toMatch(/^hookwatch_capture_duration_seconds_bucket\{le="0.1"\} \d+$/m);
  });

  it('answers the landing page or the dashboard at /', async () => {
    const response = await fetch(`${ctx.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/Hookwatch/);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await fetch(`${ctx.url}/api/v2/whatever`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toBe('not_found');
  });
});
