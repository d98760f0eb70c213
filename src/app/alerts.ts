import type { FastifyInstance } from 'fastify';
import { presentAlert } from '../alerts/present.js';
import { paginate, parsePageQuery } from '../events/paging.js';
import type { Services } from '../services.js';
import { listAlerts } from '../store/alerts.js';
import { requireUser } from './session.js';

/** `GET /app/api/alerts?limit=&before=`: every notice, newest first, with channel outcomes. */
export function registerAlertRoutes(app: FastifyInstance, services: Services): void {
  app.get('/alerts', async (request) => {
    const user = await requireUser(services, request);
    const { limit, before } = parsePageQuery(request.query as Record<string, unknown>);
    const rows = await listAlerts(services.store, {
      userId: user.id,
      limit: limit + 1,
      before: before && { createdAt: before.receivedAt, id: before.id },
    });
    // The paging helper keys on `received_at`; an alert's position is its creation time.
    const { page, next } = paginate(
      `${services.config.baseUrl}/app/api/alerts`,
      rows.map((row) => ({ row, id: row.id, received_at: row.created_at })),
      limit,
    );
    return { results: page.map(({ row }) => presentAlert(row)), next };
  });
}
