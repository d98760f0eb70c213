import { type Store, writeTransaction } from './db.js';

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
    deleted += await deleteOldestOfEndpoint(store, id, cutoff, limit - deleted);
  }
  return deleted;
}

/**
 * On PostgreSQL the events are locked in id order before they go: the order in which a
 * results transaction locks events. Deleted straight from the list of the oldest, they
 * were locked in whatever order the plan gave (a hash of their ids), and a results
 * transaction holding one of them closed a cycle; PostgreSQL then aborted one side.
 */
async function deleteOldestOfEndpoint(
  store: Store,
  endpointId: number,
  cutoff: number,
  limit: number,
): Promise<number> {
  return writeTransaction(store, async (trx) => {
    const oldest = trx
      .selectFrom('events')
      .select('id')
      .where('endpoint_id', '=', endpointId)
      .where('received_at', '<', cutoff)
      .orderBy('received_at')
      .limit(limit);
    const rows =
      store.dialect === 'postgres'
        ? await trx
            .selectFrom('events')
            .select('id')
            .where('id', 'in', oldest)
            .orderBy('id')
            .forUpdate()
            .execute()
        : await oldest.execute();
    if (rows.length === 0) return 0;
    const result = await trx
      .deleteFrom('events')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}
