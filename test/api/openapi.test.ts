import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect, it } from 'vitest';
import { createEndpoint } from '../helpers/http.js';
import { describeService } from '../helpers/service.js';
import { type ApiAnswer, apiGet, apiUser, storeEvents } from './client.js';

type Json = Record<string, any>;

/**
 * Every object schema of the document's components, closed: an answer carrying a field
 * the reference does not describe fails, so the document cannot fall behind the code.
 */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) node.forEach(closeObjects);
  else if (node && typeof node === 'object') {
    const schema = node as Json;
    if (
      schema.type === 'object' &&
      schema.properties &&
      schema.additionalProperties === undefined
    ) {
      schema.additionalProperties = false;
    }
    Object.values(schema).forEach(closeObjects);
  }
}

describeService('REST API OpenAPI document and reference page', { manualClock: true }, (ctx) => {
  const fetchDocument = async () => (await apiGet(ctx.url, '/api/v1/openapi.json')).body as Json;

  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await fetchDocument();
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: ctx.url }]);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/v1/endpoints/',
      '/api/v1/events/',
      '/api/v1/events/{id}/',
      '/api/v1/openapi.json',
    ]);
  });

  it('gives every operation a curl example against this server', async () => {
    const document = await fetchDocument();
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      const sample = item.get['x-codeSamples']?.[0]?.source as string | undefined;
      expect(sample, path).toMatch(/^curl /);
      expect(sample).toContain(`${ctx.url}${path.replace('{id}', '42')}`);
      if (path !== '/api/v1/openapi.json') expect(sample).toContain('Authorization: Bearer');
    }
  });

  it('matches every real answer of every route and status with its documented schema and headers', async () => {
    const user = await apiUser(ctx.service);
    const free = await apiUser(ctx.service, 'free');
    const endpoint = await createEndpoint(user.session, 'documented');
    const patched = await user.session.call('PATCH', `/app/api/endpoints/${endpoint.id}`, {
      silence_minutes: 5,
    });
    expect(patched.status).toBe(200);
    // Stored as a capture with forwarding on would be: binary body, attempt 1 queued.
    const [eventId] = await storeEvents(ctx.service, [
      {
        endpointId: endpoint.id,
        userId: user.session.id,
        method: 'POST',
        path: '/deep',
        queryString: 'x=1',
        headers: JSON.stringify([['Content-Type', 'application/octet-stream']]),
        body: Buffer.from([0xff, 0xfe, 0x00, 0x01]),
        size: 4,
        contentType: 'application/octet-stream',
        sourceIp: '127.0.0.1',
        receivedAt: ctx.clock!.nowMicros(),
        truncated: false,
        signature: null,
        signatureReason: null,
        signatureKey: null,
        forwardStatus: 'pending',
        firstAttemptUrl: 'http://127.0.0.1:9/hook/deep?x=1',
      },
    ]);

    const answers: Array<[path: string, status: number, answer: ApiAnswer]> = [];
    const record = async (path: string, answer: Promise<ApiAnswer>) => {
      const a = await answer;
      answers.push([path, a.status, a]);
      return a;
    };
    await record('/api/v1/endpoints/', user.get('/api/v1/endpoints/'));
    await record('/api/v1/events/', user.get('/api/v1/events/?limit=1'));
    await record('/api/v1/events/', user.get(`/api/v1/events/?endpoint=${endpoint.id}`));
    await record('/api/v1/events/', user.get('/api/v1/events/?limit=0'));
    await record('/api/v1/events/', user.get('/api/v1/events/?endpoint=987654'));
    const detail = await record('/api/v1/events/{id}/', user.get(`/api/v1/events/${eventId}/`));
    expect(detail.body.deliveries.length).toBeGreaterThan(0);
    expect(detail.body.body_encoding).toBe('base64');
    await record('/api/v1/events/{id}/', user.get('/api/v1/events/abc/'));
    await record('/api/v1/events/{id}/', user.get('/api/v1/events/987654/'));
    for (const path of ['/api/v1/endpoints/', '/api/v1/events/', '/api/v1/events/{id}/']) {
      const real = path.replace('{id}', String(eventId));
      await record(path, apiGet(ctx.url, real));
      await record(path, free.get(real));
    }
    await record('/api/v1/openapi.json', apiGet(ctx.url, '/api/v1/openapi.json'));
    while ((await user.get('/api/v1/endpoints/')).status !== 429);
    for (const path of ['/api/v1/endpoints/', '/api/v1/events/', '/api/v1/events/{id}/']) {
      await record(path, user.get(path.replace('{id}', String(eventId))));
    }

    const document = await fetchDocument();
    closeObjects(document.components);
    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi.json');

    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const status of Object.keys(item.get.responses)) documented.add(`${path} ${status}`);
    }
    const seen = new Set<string>();
    for (const [path, status, answer] of answers) {
      const where = `${path} ${status}`;
      seen.add(where);
      const response = document.paths[path]?.get.responses[status];
      expect(response, `${where} is not documented`).toBeDefined();
      const pointer = `openapi.json#/paths/${path.replaceAll('/', '~1')}/get/responses/${status}/content/application~1json/schema`;
      const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
      expect(validate(answer.body) ? [] : validate.errors, where).toEqual([]);
      for (const header of Object.keys(response.headers ?? {})) {
        expect(answer.headers.get(header), `${where} ${header}`).not.toBeNull();
      }
    }
    expect([...seen].sort()).toEqual([...documented].sort());
  });

  it('serves the reference page at /docs/api with its renderer from this server', async () => {
    const page = await fetch(`${ctx.url}/docs/api`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    expect(html).toContain('data-url="/api/v1/openapi.json"');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = /<script src="([^"]+)"><\/script>/.exec(html)?.[1];
    expect(script).toMatch(/^\/docs\/api\/reference\.js\?v=[0-9a-f]+$/);
    const bundle = await fetch(`${ctx.url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
  });
});
