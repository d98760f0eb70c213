import { type Selectable, sql } from 'kysely';
import type { Db, Store } from '../db.js';
import type { DbAttempt, ForwardStatus } from '../schema.js';

// What several attempt-queue files need: the row type, the started-count upkeep, the event lock.

export type AttemptRow = Selectable<DbAttempt>;

/** Attempts that count toward `events.attempts_started`: every row that has started. */
export function recountStarted(db: Db, eventIds: number[]) {
  return db
    .updateTable('events')
    .set({
      attempts_started: sql<number>`(select count(*) from attempts
        where attempts.event_id = events.id and attempts.started_at is not null)`,
    })
    .where('id', 'in', eventIds)
    .execute();
}

export function unique(values: number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

export async function lockEvent(
  store: Store,
  db: Db,
  eventId: number,
): Promise<ForwardStatus | null> {
  let query = db.selectFrom('events').select('forward_status').where('id', '=', eventId);
  if (store.dialect === 'postgres') query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  return row?.forward_status ?? null;
}
