import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import { postgresAddressLimitStore } from './addressLimitStore.js';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../http/errors.js';
import type { Services } from '../services.js';
import { registerAccountRoutes } from './accounts.js';
import { registerApiKeyRoutes } from './apiKey.js';
import { registerAlertRoutes } from './alerts.js';
import { checkCrossSite } from './csrf.js';
import { registerDeliveryRoutes } from './deliveries.js';
import { registerEndpointRoutes } from './endpoints.js';
import { registerEventRoutes } from './events.js';
import { registerStreamRoutes } from './stream.js';

/** The dashboard's JSON API under /app/api (DESIGN §8), authenticated by session cookie. */
export async function appApi(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(cookie);
  // Only routes that ask for it (signup, login) are limited; see their config.
  await app.register(rateLimit, {
    global: false,
    // On PostgreSQL the counters live in the database, shared by every instance; SQLite
    // mode is one process, and the plugin's memory store is enough.
    ...(services.store.dialect === 'postgres'
      ? { store: postgresAddressLimitStore(services.store) }
      : {}),
    errorResponseBuilder: (_request, context) =>
      new HttpError(
        429,
        'too_many_requests',
        `Too many attempts from this address; try again in ${Math.ceil(context.ttl / 1000)} s.`,
      ),
  });
  app.addHook('onRequest', async (request) => checkCrossSite(request, services.config.baseUrl));
  registerAccountRoutes(app, services);
  registerApiKeyRoutes(app, services);
  registerEndpointRoutes(app, services);
  registerEventRoutes(app, services);
  registerDeliveryRoutes(app, services);
  registerAlertRoutes(app, services);
  registerStreamRoutes(app, services);
}
