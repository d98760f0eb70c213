import type { Db } from './db.js';

/**
 * Forwarding turned off (DESIGN §5): scheduled attempts of the endpoint are cancelled and
 * its undelivered events marked `cancelled`. Takes the database or a transaction.
 */
export async function cancelScheduledForEndpoint(db: Db, endpointId: number): Promise<number> {
  const result = await db
    .updateTable('attempts')
    .set({ state: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  await db
    .updateTable('events')
    .set({ forward_status: 'cancelled' })
    .where('endpoint_id', '=', endpointId)
    .where('forward_status', 'in', ['pending', 'retrying'])
    .execute();
  return Number(result.numUpdatedRows);
}
