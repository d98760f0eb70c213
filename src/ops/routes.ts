import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Services } from '../services.js';

/** /healthz (process up), /readyz (database reachable), /metrics (Prometheus text). */
export function registerOpsRoutes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async () => ({ ok: true }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(services.store.db);
      return { ok: true, database: services.store.dialect };
    } catch (error) {
      return reply.code(503).send({
        error: 'database_unreachable',
        detail: `The database does not answer: ${(error as Error).message}`,
      });
    }
  });

  app.get('/metrics', async (_request, reply) => {
    reply.type(services.metrics.registry.contentType);
    return services.metrics.registry.metrics();
  });
}
