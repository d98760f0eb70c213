import type { Selectable, Updateable } from 'kysely';
import { type Db, type Store, writeTransaction } from './db.js';
import type { DbEndpoint } from './schema.js';

export type Endpoint = Selectable<DbEndpoint>;

export type EndpointPatch = Updateable<DbEndpoint>;

export async function createEndpoint(
  store: Store,
  input: { userId: number; name: string; token: string; now: number },
): Promise<Endpoint> {
  return store.db
    .insertInto('endpoints')
    .values({
      user_id: input.userId,
      name: input.name,
      token: input.token,
      is_active: 1,
      created_at: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A user's endpoints, newest first. */
export async function listEndpoints(store: Store, userId: number): Promise<Endpoint[]> {
  return store.db
    .selectFrom('endpoints')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
}

export async function findEndpoint(
  store: Store,
  userId: number,
  id: number,
): Promise<Endpoint | undefined> {
  return store.db
    .selectFrom('endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function findEndpointByToken(
  store: Store,
  token: string,
): Promise<Endpoint | undefined> {
  return store.db.selectFrom('endpoints').selectAll().where('token', '=', token).executeTakeFirst();
}

/** Takes the database or a transaction. */
export async function updateEndpoint(
  db: Db,
  userId: number,
  id: number,
  patch: EndpointPatch,
): Promise<Endpoint | undefined> {
  if (Object.keys(patch).length === 0) {
    return db
      .selectFrom('endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }
  return db
    .updateTable('endpoints')
    .set(patch)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Deletes an endpoint with its events and attempts; false when it is not the user's.
 * The endpoint row is locked first: a capture batch locks it too before storing events,
 * so a batch either commits before the events are deleted or finds the endpoint gone.
 * (On PostgreSQL no foreign key cascades from endpoints to events; see migration 004.)
 * Then, on PostgreSQL, its events in id order, the order in which a results transaction
 * locks them: one of replays alone locks no endpoint, and deleted in the plan's order
 * (newest first through the endpoint's index) the events closed a cycle with it.
 */
export async function deleteEndpoint(store: Store, userId: number, id: number): Promise<boolean> {
  return writeTransaction(store, async (trx) => {
    let lock = trx
      .selectFrom('endpoints')
      .select('id')
      .where('id', '=', id)
      .where('user_id', '=', userId);
    if (store.dialect === 'postgres') lock = lock.forUpdate();
    if (!(await lock.executeTakeFirst())) return false;
    if (store.dialect === 'postgres') {
      // Counted, not listed: an endpoint may hold millions of events.
      await trx
        .selectFrom(
          trx
            .selectFrom('events')
            .select('id')
            .where('endpoint_id', '=', id)
            .orderBy('id')
            .forUpdate()
            .as('locked'),
        )
        .select((eb) => eb.fn.countAll().as('n'))
        .execute();
    }
    // Attempts go with their events (that key cascades on both databases).
    await trx.deleteFrom('events').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('endpoints').where('id', '=', id).execute();
    return true;
  });
}
