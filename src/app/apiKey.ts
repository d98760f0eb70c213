import type { FastifyInstance } from 'fastify';
import { newApiKey } from '../api/keys.js';
import type { Services } from '../services.js';
import { replaceApiKey } from '../store/apiKeys.js';
import { requireUser } from './session.js';

export function registerApiKeyRoutes(app: FastifyInstance, services: Services): void {
  /**
   * Creates the user's API key, or replaces it: the old one stops working at once. The
   * key is in this answer only; afterwards `GET /me` shows its prefix. Any plan may hold
   * a key (it answers 403 until the plan includes the API).
   */
  app.post('/api-key', async (request, reply) => {
    const user = await requireUser(services, request);
    const { key, hash, prefix } = newApiKey();
    await replaceApiKey(services.store, {
      userId: user.id,
      prefix,
      keyHash: hash,
      now: services.clock.nowMicros(),
    });
    return reply.code(201).header('cache-control', 'no-store').send({ key });
  });
}
