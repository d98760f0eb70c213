import type { FastifyInstance } from 'fastify';
import { paginate, parsePageQuery } from '../events/paging.js';
import { presentEventDetail, presentEventSummary } from '../events/present.js';
import { notFound } from '../http/errors.js';
import type { Services } from '../services.js';
import { findEndpoint } from '../store/endpoints.js';
import { findEventWithAttempts, listEvents } from '../store/events.js';
import { parseId } from './params.js';
import { requireUser } from './session.js';

export function registerEventRoutes(app: FastifyInstance, services: Services): void {
  const { store, config } = services;

  app.get('/endpoints/:id/events', async (request) => {
    const user = await requireUser(services, request);
    const endpointId = parseId(request.params, 'id');
    const { limit, before } = parsePageQuery(request.query as Record<string, unknown>);
    if (!(await findEndpoint(store, user.id, endpointId))) throw notFound('Endpoint');
    const rows = await listEvents(store, { userId: user.id, endpointId, limit: limit + 1, before });
    const { page, next } = paginate(
      `${config.baseUrl}/app/api/endpoints/${endpointId}/events`,
      rows,
      limit,
    );
    return { results: page.map(presentEventSummary), next };
  });

  app.get('/events/:id', async (request) => {
    const user = await requireUser(services, request);
    const id = parseId(request.params, 'id');
    const found = await findEventWithAttempts(store, user.id, id);
    if (!found) throw notFound('Event');
    return presentEventDetail(found.event, found.attempts);
  });
}
