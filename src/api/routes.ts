import type { FastifyInstance, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import { presentEndpoint } from '../endpoints/present.js';
import { paginate, parseIdParam, parsePageQuery } from '../events/paging.js';
import { presentEventDetail, presentEventSummary } from '../events/present.js';
import { notFound } from '../http/errors.js';
import { findEndpoint, listEndpoints } from '../store/endpoints.js';
import { findEventWithAttempts, listEvents } from '../store/events.js';
import { type ApiDeps, apiUser } from './auth.js';
import { apiResponses, curlSample } from './openapi.js';
import { EventListQuery, EventParams } from './schemas.js';
import { parameterErrors } from './validation.js';

type Gate = NonNullable<RouteShorthandOptions['onRequest']>;

/**
 * DESIGN §7 spells the paths with a trailing slash; scripts often leave it off. Both
 * answer the same; the document lists the slashed one.
 */
function getBothWays(
  scope: FastifyInstance,
  path: string,
  options: RouteShorthandOptions,
  handler: RouteHandlerMethod,
): void {
  scope.get(path, options, handler);
  scope.get(
    path.replace(/\/$/, ''),
    { ...options, schema: { ...options.schema, hide: true } },
    handler,
  );
}

export function registerApiRoutes(scope: FastifyInstance, deps: ApiDeps, gate: Gate): void {
  const { store, config } = deps;

  getBothWays(
    scope,
    '/endpoints/',
    {
      onRequest: gate,
      schema: {
        operationId: 'listEndpoints',
        summary: 'List your endpoints',
        description: 'All of your endpoints, newest first, with `count`.',
        tags: ['Endpoints'],
        response: apiResponses({ schemaId: 'EndpointList', description: 'Your endpoints.' }, []),
        ...{ 'x-codeSamples': curlSample('/api/v1/endpoints/') },
      },
    },
    async (request) => {
      const rows = await listEndpoints(store, apiUser(request).id);
      return { count: rows.length, results: rows.map((r) => presentEndpoint(r, config.baseUrl)) };
    },
  );

  getBothWays(
    scope,
    '/events/',
    {
      onRequest: gate,
      schemaErrorFormatter: parameterErrors(EventListQuery),
      schema: {
        operationId: 'listEvents',
        summary: 'List events',
        description:
          'Your events, newest first, optionally of one endpoint. Follow `next` for the following page: it carries `before` and the `before_id` tie-breaker, so no event is skipped or repeated even when several share a `received_at`; it is null on the last page. Unknown parameters are ignored.',
        tags: ['Events'],
        querystring: EventListQuery,
        response: apiResponses(
          { schemaId: 'EventList', description: 'A page of events.' },
          [400, 404],
        ),
        ...{ 'x-codeSamples': curlSample('/api/v1/events/?endpoint=1&limit=50') },
      },
    },
    async (request) => {
      const user = apiUser(request);
      const query = request.query as Record<string, unknown>;
      const endpointId = parseIdParam(query, 'endpoint');
      const { limit, before } = parsePageQuery(query);
      if (endpointId !== null && !(await findEndpoint(store, user.id, endpointId))) {
        throw notFound('Endpoint');
      }
      const rows = await listEvents(store, {
        userId: user.id,
        endpointId,
        limit: limit + 1,
        before,
      });
      const { page, next } = paginate(
        `${config.baseUrl}/api/v1/events/`,
        rows,
        limit,
        endpointId === null ? {} : { endpoint: String(endpointId) },
      );
      return { results: page.map(presentEventSummary), next };
    },
  );

  getBothWays(
    scope,
    '/events/:id/',
    {
      onRequest: gate,
      schemaErrorFormatter: parameterErrors(EventParams),
      schema: {
        operationId: 'getEvent',
        summary: 'Get an event',
        description:
          'One event in full: headers as an object and as the raw ordered list, the body, the query string and every delivery attempt.',
        tags: ['Events'],
        params: EventParams,
        response: apiResponses({ schemaId: 'EventDetail', description: 'The event.' }, [400, 404]),
        ...{ 'x-codeSamples': curlSample('/api/v1/events/42/') },
      },
    },
    async (request) => {
      const user = apiUser(request);
      const { id } = request.params as { id: number };
      const found = await findEventWithAttempts(store, user.id, id);
      if (!found) throw notFound('Event');
      return presentEventDetail(found.event, found.attempts);
    },
  );
}
