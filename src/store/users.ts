import type { Selectable } from 'kysely';
import type { Store } from './db.js';
import { isUniqueViolation } from './errors.js';
import type { DbUser, Plan } from './schema.js';

export type User = Selectable<DbUser>;

/** Creates a user; null when the email is taken. Emails are stored lower-cased. */
export async function createUser(
  store: Store,
  input: { email: string; passwordHash: string; plan: Plan; now: number },
): Promise<User | null> {
  try {
    return await store.db
      .insertInto('users')
      .values({
        email: input.email.toLowerCase(),
        password_hash: input.passwordHash,
        plan: input.plan,
        created_at: input.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function findUserByEmail(store: Store, email: string): Promise<User | undefined> {
  return store.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

/** Changes a plan; false when no such user. */
export async function setUserPlan(store: Store, email: string, plan: Plan): Promise<boolean> {
  const result = await store.db
    .updateTable('users')
    .set({ plan })
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
