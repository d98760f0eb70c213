import type { Store } from './db.js';

/**
 * Deletes up to `limit` events received before `cutoff`, with their attempts (pending
 * retries included: the foreign key cascades). It walks endpoint by endpoint through the
 * (endpoint_id, received_at, id) index, so the events table needs no index of its own
 * on received_at — one index less to maintain on every capture. Small batches keep each
 * write short, so captures never wait long behind the sweep. Returns how many were deleted.
 */
export async function deleteEventsBefore(
  store: Store,
  cutoff: number,
  limit: number,
): Promise<number> {
  const endpoints = await store.db
    .selectFrom('endpoints')
    .select('id')
    .where('last_event_at', 'is not', null)
    .execute();
  let deleted = 0;
  for (const { id } of endpoints) {
    if (deleted >= limit) break;
    const result = await store.db
      .deleteFrom('events')
      .where(
        'id',
        'in',
        store.db
          .selectFrom('events')
          .select('id')
          .where('endpoint_id', '=', id)
          .where('received_at', '<', cutoff)
          .orderBy('received_at')
          .limit(limit - deleted),
      )
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
