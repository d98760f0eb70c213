import type { Store } from './db.js';

/**
 * Deletes up to `limit` events received before `cutoff`, with their attempts (pending
 * retries included: the foreign key cascades). Small batches keep each write short, so
 * captures never wait long behind the sweep. Returns how many were deleted.
 */
export async function deleteEventsBefore(
  store: Store,
  cutoff: number,
  limit: number,
): Promise<number> {
  const result = await store.db
    .deleteFrom('events')
    .where(
      'id',
      'in',
      store.db
        .selectFrom('events')
        .select('id')
        .where('received_at', '<', cutoff)
        .orderBy('received_at')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
