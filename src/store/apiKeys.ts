import type { Selectable } from 'kysely';
import { type Store, writeTransaction } from './db.js';
import type { DbApiKey } from './schema.js';
import type { User } from './users.js';

export type ApiKeyRow = Selectable<DbApiKey>;

export async function findActiveApiKey(
  store: Store,
  userId: number,
): Promise<ApiKeyRow | undefined> {
  return store.db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Revokes the user's key, if any, and stores the new one, in one transaction. */
export async function replaceApiKey(
  store: Store,
  input: { userId: number; prefix: string; keyHash: string; now: number },
): Promise<ApiKeyRow> {
  return writeTransaction(store, async (trx) => {
    await trx
      .updateTable('api_keys')
      .set({ revoked_at: input.now })
      .where('user_id', '=', input.userId)
      .where('revoked_at', 'is', null)
      .execute();
    return trx
      .insertInto('api_keys')
      .values({
        user_id: input.userId,
        prefix: input.prefix,
        key_hash: input.keyHash,
        created_at: input.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** The live key with this SHA-256 and its owner. */
export async function findApiKeyOwner(
  store: Store,
  keyHash: string,
): Promise<{ key: ApiKeyRow; user: User } | undefined> {
  const row = await store.db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select([
      'users.email',
      'users.password_hash',
      'users.plan',
      'users.created_at as user_created_at',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const { email, password_hash, plan, user_created_at, ...key } = row;
  return {
    key,
    user: { id: key.user_id, email, password_hash, plan, created_at: user_created_at },
  };
}

/** Records a use; never moves `last_used_at` backwards when instances race. */
export async function touchApiKey(store: Store, id: number, now: number): Promise<void> {
  await store.db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)]))
    .execute();
}
