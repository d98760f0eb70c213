import type { FastifyInstance } from 'fastify';
import { cancelRetries, parseReplayBody, queueReplay, replayTarget } from '../delivery/replay.js';
import { presentAttempt, presentEventDetail } from '../events/present.js';
import { notFound } from '../http/errors.js';
import type { Services } from '../services.js';
import { findEndpoint } from '../store/endpoints.js';
import { findEvent, findEventWithAttempts } from '../store/events.js';
import { parseId } from './params.js';
import { requireUser } from './session.js';

/** Replay and cancel (DESIGN §5, §8): the only calls that act on an event's deliveries. */
export function registerDeliveryRoutes(app: FastifyInstance, services: Services): void {
  const { store, bus, clock, config } = services;

  app.post('/events/:id/replay', async (request, reply) => {
    const user = await requireUser(services, request);
    const id = parseId(request.params, 'id');
    const event = await findEvent(store, user.id, id);
    if (!event) throw notFound('Event');
    const givenTarget = parseReplayBody(request.body, config.allowPrivateTargets);
    const endpoint = await findEndpoint(store, user.id, event.endpoint_id);
    if (!endpoint) throw notFound('Event');
    const target = replayTarget(event, endpoint.forwarding_url, givenTarget);
    const attempt = await queueReplay({ store, bus, now: clock.nowMicros() }, event, target);
    return reply.code(202).send(presentAttempt(attempt));
  });

  app.post('/events/:id/cancel', async (request) => {
    const user = await requireUser(services, request);
    const id = parseId(request.params, 'id');
    const event = await findEvent(store, user.id, id);
    if (!event) throw notFound('Event');
    await cancelRetries({ store, bus }, event);
    const updated = await findEventWithAttempts(store, user.id, id);
    if (!updated) throw notFound('Event');
    return presentEventDetail(updated.event, updated.attempts);
  });
}
