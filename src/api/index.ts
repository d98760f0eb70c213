import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { type ApiDeps, createApiGate } from './auth.js';
import { registerOpenApiRoute, swaggerOptions } from './openapi.js';
import { API_RATE_LIMIT, type RateLimitPolicy, createRateLimiter } from './rateLimit.js';
import { registerReferencePage } from './referencePage.js';
import { registerApiRoutes } from './routes.js';
import { SHARED_SCHEMAS } from './schemas.js';

export type { ApiDeps } from './auth.js';

export interface ApiOptions {
  /** DESIGN §7's 120 a minute; only benchmarks change it. */
  rateLimit?: RateLimitPolicy;
}

/** The read-only REST API v1 (DESIGN §7) under /api/v1 and its reference at /docs/api. */
export async function registerApi(
  app: FastifyInstance,
  deps: ApiDeps,
  options: ApiOptions = {},
): Promise<void> {
  await app.register((scope) => apiV1(scope, deps, options), { prefix: '/api/v1' });
  registerReferencePage(app);
}

async function apiV1(scope: FastifyInstance, deps: ApiDeps, options: ApiOptions): Promise<void> {
  // The response schemas document the answers (and the tests hold every answer to
  // them) but do not write them: fast-json-stringify would silently drop any field a
  // schema forgot, and a field the API returns must never vanish on the way out.
  scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await scope.register(swagger, swaggerOptions);
  for (const schema of SHARED_SCHEMAS) scope.addSchema(schema);
  const limiter = createRateLimiter(deps.store, options.rateLimit ?? API_RATE_LIMIT);
  registerApiRoutes(scope, deps, createApiGate(deps, limiter));
  registerOpenApiRoute(scope, deps);
}
