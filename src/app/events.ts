import type { FastifyInstance } from 'fastify';
import { filterParams, isFiltering, parseEventFilter } from '../events/filter.js';
import { paginate, paginateScan, parsePageQuery } from '../events/paging.js';
import { presentEventDetail, presentEventSummary } from '../events/present.js';
import { notFound } from '../http/errors.js';
import type { Services } from '../services.js';
import { findEndpoint } from '../store/endpoints.js';
import { findEventWithAttempts, listEvents, listFilteredEvents } from '../store/events.js';
import { parseId } from './params.js';
import { requireUser } from './session.js';

export function registerEventRoutes(app: FastifyInstance, services: Services): void {
  const { store, config } = services;

  app.get('/endpoints/:id/events', async (request) => {
    const user = await requireUser(services, request);
    const endpointId = parseId(request.params, 'id');
    const query = request.query as Record<string, unknown>;
    const { limit, before } = parsePageQuery(query);
    const filter = parseEventFilter(query);
    if (!(await findEndpoint(store, user.id, endpointId))) throw notFound('Endpoint');
    const base = `${config.baseUrl}/app/api/endpoints/${endpointId}/events`;
    const scope = { userId: user.id, endpointId, limit: limit + 1, before };
    if (!isFiltering(filter)) {
      const { page, next } = paginate(base, await listEvents(store, scope), limit);
      return { results: page.map(presentEventSummary), next };
    }
    // A filtered page reads a bounded stretch of the endpoint's events, so it may come
    // back short, or empty, with a `next` that goes on where the reading stopped.
    const found = await listFilteredEvents(store, { ...scope, filter });
    const { page, next } = paginateScan(
      base,
      found.rows,
      limit,
      found.scannedTo,
      filterParams(filter),
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
