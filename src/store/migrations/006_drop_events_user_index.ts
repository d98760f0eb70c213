import type { Kysely } from 'kysely';

/**
 * Drops the (user_id, received_at, id) index on events: every capture paid for an entry
 * in it, and only the REST API's list across all of a user's endpoints read it. That
 * list now merges the user's per-endpoint pages (see listEvents), over the
 * (endpoint_id, received_at, id) index that every endpoint's own list uses.
 */
export function dropEventsUserIndex() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('events_user_received').ifExists().execute();
    },
  };
}
