import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './auth.js';
import { API_RATE_LIMIT } from './rateLimit.js';

/** Stands for the service's BASE_URL in the document; replaced when it is served. */
const BASE_URL = '{{HOOKWATCH_BASE_URL}}';

const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    type: 'integer',
    description: `Requests allowed per key in any rolling 60 seconds (${API_RATE_LIMIT.max}).`,
  },
  'X-RateLimit-Remaining': { type: 'integer', description: 'How many of them are left.' },
  'X-RateLimit-Reset': {
    type: 'integer',
    description:
      'Unix time (seconds) when the oldest counted request leaves the window, so Remaining goes up.',
  },
};

const errorAnswers = {
  400: {
    description: 'A malformed parameter; `detail` names it. Uses budget.',
    headers: rateLimitHeaders,
  },
  401: {
    description: 'Missing, malformed, unknown or revoked key (one answer for all). No budget used.',
    headers: {
      'WWW-Authenticate': { type: 'string', description: 'Always `Bearer`.' },
    },
  },
  403: {
    description: 'The key owner’s plan has no API access (free). No budget used.',
    headers: rateLimitHeaders,
  },
  404: {
    description: 'No such endpoint or event among yours. Uses budget.',
    headers: rateLimitHeaders,
  },
  429: {
    description: `Over ${API_RATE_LIMIT.max} requests in the last 60 seconds. No budget used.`,
    headers: {
      ...rateLimitHeaders,
      'Retry-After': {
        type: 'integer',
        description: 'Whole seconds until a request will be admitted again (at least 1).',
      },
    },
  },
} as const;

/**
 * The `response` part of a route schema: the success answer by reference to a shared
 * schema, and the error answers this route can give, each with its headers.
 */
export function apiResponses(
  ok: { schemaId: string; description: string },
  errors: ReadonlyArray<keyof typeof errorAnswers>,
): Record<number, unknown> {
  const responses: Record<number, unknown> = {
    200: { $ref: `${ok.schemaId}#`, description: ok.description, headers: rateLimitHeaders },
  };
  for (const status of [401, 403, ...errors, 429] as const) {
    responses[status] = { $ref: 'Error#', ...errorAnswers[status] };
  }
  return responses;
}

/** An `x-codeSamples` entry (shown by the reference page) with the curl for a route. */
export function curlSample(pathAndQuery: string): Array<Record<string, string>> {
  return [
    {
      lang: 'Shell',
      label: 'curl',
      source: `curl -sS "${BASE_URL}${pathAndQuery}" \\\n  -H "Authorization: Bearer $HOOKWATCH_API_KEY"`,
    },
  ];
}

export const swaggerOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Hookwatch REST API',
      version: '1',
      description: [
        'Read-only JSON access to your endpoints and captured events.',
        '',
        `Authenticate with the key from the account settings page: \`Authorization: Bearer hw_live_…\`. The API is part of the startup and business plans. Each key may make ${API_RATE_LIMIT.max} requests in any rolling 60 seconds; every answer says how many are left (\`X-RateLimit-*\`), and a 429 says when to retry (\`Retry-After\`).`,
        '',
        'Lists are newest first. Follow `next` to page through events; it is null on the last page. Errors are `{"error": "<code>", "detail": "<sentence>"}`.',
      ].join('\n'),
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'hw_live_…',
          description: 'Your API key, created on the account settings page.',
        },
      },
    },
    security: [{ apiKey: [] }],
    tags: [
      { name: 'Endpoints', description: 'Capture URLs and their settings.' },
      { name: 'Events', description: 'Captured requests and their deliveries.' },
      { name: 'Meta', description: 'This description.' },
    ],
  },
  // Shared schemas appear under components.schemas by their $id (Endpoint, EventDetail…).
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) =>
      typeof json.$id === 'string' ? json.$id : `def-${i}`,
  },
};

/** `GET /api/v1/openapi.json`: public, outside the rate limit. */
export function registerOpenApiRoute(scope: FastifyInstance, deps: ApiDeps): void {
  let served: { baseUrl: string; text: string } | null = null;
  scope.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This OpenAPI 3.1 description',
        description: 'Public: no key needed, and it does not count against the rate limit.',
        tags: ['Meta'],
        security: [],
        response: { 200: { type: 'object', description: 'The OpenAPI document.' } },
        ...{
          'x-codeSamples': [
            { lang: 'Shell', label: 'curl', source: `curl -sS ${BASE_URL}/api/v1/openapi.json` },
          ],
        },
      },
    },
    async (_request, reply) => {
      // BASE_URL is only final once the server listens (PORT=0 in tests), so the
      // document is made on first use and remade if it changes.
      const baseUrl = deps.config.baseUrl;
      if (served?.baseUrl !== baseUrl) {
        const document = { ...scope.swagger(), servers: [{ url: baseUrl }] };
        served = { baseUrl, text: JSON.stringify(document).replaceAll(BASE_URL, baseUrl) };
      }
      return reply.type('application/json; charset=utf-8').send(served.text);
    },
  );
}
