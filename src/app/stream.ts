import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, notFound } from '../http/errors.js';
import type { Services } from '../services.js';
import { findEndpoint } from '../store/endpoints.js';
import { findNewestEventId } from '../store/eventFeed.js';
import { FeedViewer, LiveFeed } from './liveFeed.js';
import { parseId } from './params.js';
import { requireUser, sessionUser } from './session.js';
import { SseStream } from './sse.js';

export interface StreamOptions {
  /**
   * How often an idle stream gets a comment line (proxies close silent connections,
   * often after 60 s) and the session and endpoint are checked again.
   */
  heartbeatMs?: number;
}

const DEFAULT_HEARTBEAT_MS = 15_000;
const CURSOR = /^(0|[1-9]\d{0,15})$/;

/**
 * Where the stream starts: `Last-Event-ID` (a browser reconnecting) wins over `?after=`
 * (the id of the newest event the page loaded), so nothing between the two is lost.
 */
function requestedCursor(request: FastifyRequest): number | null {
  const header = request.headers['last-event-id'];
  if (typeof header === 'string' && header !== '') {
    if (!CURSOR.test(header)) throw badRequest('Last-Event-ID', 'must be an event id');
    return Number(header);
  }
  const after = (request.query as Record<string, unknown>).after;
  if (after === undefined || after === '') return null;
  if (typeof after !== 'string' || !CURSOR.test(after)) {
    throw badRequest('after', `must be an event id (got "${String(after)}")`);
  }
  return Number(after);
}

/**
 * `GET /app/api/endpoints/<id>/stream` (DESIGN §8): Server-Sent Events with new events and
 * attempt results, live. Written on the raw response after `reply.hijack()`: the stream
 * must outlive the handler, carry our own ids for reconnect catch-up, and be ended by us
 * when the service stops, since `app.close()` waits for every open response.
 */
export function registerStreamRoutes(
  app: FastifyInstance,
  services: Services,
  options: StreamOptions = {},
): void {
  const { store, clock, bus, logger } = services;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const feed = new LiveFeed(bus);
  const open = new Set<() => void>();

  app.addHook('preClose', async () => {
    feed.close();
    for (const end of [...open]) end();
  });

  app.get('/endpoints/:id/stream', async (request, reply) => {
    const user = await requireUser(services, request);
    const endpointId = parseId(request.params, 'id');
    if (!(await findEndpoint(store, user.id, endpointId))) throw notFound('Endpoint');
    const cursor =
      requestedCursor(request) ?? (await findNewestEventId(store, user.id, endpointId));

    reply.hijack();
    const sse = new SseStream(reply.raw);
    sse.open();
    const viewer = new FeedViewer({
      store,
      clock,
      userId: user.id,
      endpointId,
      cursor,
      sse,
      onError: (error) => {
        logger.warn({ err: error, endpointId }, 'live feed query failed');
        end();
      },
    });

    // Logging out or deleting the endpoint elsewhere ends the stream at the next beat;
    // the browser's reconnect then gets the 401 or 404 and the page reacts.
    const beat = setInterval(() => {
      sse.comment('ping');
      void (async () => {
        const current = await sessionUser(services, request);
        const endpoint = current && (await findEndpoint(store, current.id, endpointId));
        if (!endpoint) end();
      })().catch(() => end());
    }, heartbeatMs);
    beat.unref();

    function end(): void {
      if (!open.delete(end)) return;
      clearInterval(beat);
      feed.remove(viewer);
      sse.end();
    }
    open.add(end);
    reply.raw.on('close', end);
    feed.add(viewer);
    // Whatever arrived after the cursor (a reconnect, or the page's first load) goes out now.
    viewer.poke();
  });
}
