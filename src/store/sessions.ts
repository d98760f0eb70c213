import type { Store } from './db.js';
import type { User } from './users.js';

export async function createSession(
  store: Store,
  input: { idHash: string; userId: number; now: number; expiresAt: number },
): Promise<void> {
  await store.db
    .insertInto('sessions')
    .values({
      id_hash: input.idHash,
      user_id: input.userId,
      created_at: input.now,
      expires_at: input.expiresAt,
    })
    .execute();
}

/** The user a live session belongs to. */
export async function findSessionUser(
  store: Store,
  idHash: string,
  now: number,
): Promise<User | undefined> {
  return store.db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .where('sessions.id_hash', '=', idHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(store: Store, idHash: string): Promise<void> {
  await store.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/**
 * Removes sessions that expired at or before `now`; returns how many. Expired sessions
 * already let no one in (findSessionUser checks the expiry); this only stops the table
 * from growing with every login that was never logged out.
 */
export async function deleteExpiredSessions(store: Store, now: number): Promise<number> {
  const result = await store.db
    .deleteFrom('sessions')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
