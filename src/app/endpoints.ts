import type { FastifyInstance } from 'fastify';
import { parseEndpointChanges, parseName } from '../endpoints/changes.js';
import { presentEndpoint } from '../endpoints/present.js';
import { newCaptureToken } from '../endpoints/tokens.js';
import { applyEndpointChanges } from '../endpoints/update.js';
import { notFound } from '../http/errors.js';
import type { Services } from '../services.js';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints } from '../store/endpoints.js';
import { parseId } from './params.js';
import { requireUser } from './session.js';

export function registerEndpointRoutes(app: FastifyInstance, services: Services): void {
  const { store, config, clock, bus } = services;

  app.get('/endpoints', async (request) => {
    const user = await requireUser(services, request);
    const rows = await listEndpoints(store, user.id);
    return { count: rows.length, results: rows.map((r) => presentEndpoint(r, config.baseUrl)) };
  });

  app.post('/endpoints', async (request, reply) => {
    const user = await requireUser(services, request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const name = parseName(body.name ?? 'Untitled endpoint');
    const row = await createEndpoint(store, {
      userId: user.id,
      name,
      token: newCaptureToken(),
      now: clock.nowMicros(),
    });
    return reply.code(201).send(presentEndpoint(row, config.baseUrl));
  });

  app.get('/endpoints/:id', async (request) => {
    const user = await requireUser(services, request);
    const id = parseId(request.params, 'id');
    const row = await findEndpoint(store, user.id, id);
    if (!row) throw notFound('Endpoint');
    return presentEndpoint(row, config.baseUrl);
  });

  app.patch('/endpoints/:id', async (request) => {
    const user = await requireUser(services, request);
    const id = parseId(request.params, 'id');
    const changes = parseEndpointChanges(request.body ?? {}, config.allowPrivateTargets);
    const row = await applyEndpointChanges(
      { store, bus, now: clock.nowMicros(), secretRotationHours: config.secretRotationHours },
      user.id,
      id,
      changes,
    );
    if (!row) throw notFound('Endpoint');
    return presentEndpoint(row, config.baseUrl);
  });

  app.delete('/endpoints/:id', async (request, reply) => {
    const user = await requireUser(services, request);
    const id = parseId(request.params, 'id');
    const row = await findEndpoint(store, user.id, id);
    if (!row || !(await deleteEndpoint(store, user.id, id))) throw notFound('Endpoint');
    await bus.publish('endpoint_changed', row.token);
    return reply.code(204).send();
  });
}
