import { sql } from 'kysely';
import type { Store } from './db.js';

export interface LoginWindow {
  email: string;
  now: number;
  windowMicros: number;
  /** Failures allowed in the window. */
  max: number;
}

export interface LoginAdmission {
  admitted: boolean;
  /** The oldest failure that still counts (microseconds), null when there is none. */
  oldest: number | null;
}

/**
 * Lets a login attempt through when fewer than `max` failures are on record for the
 * address in (now − window, now], and records the attempt as a failure at once, to be
 * cleared if the password is right: so attempts racing on several instances cannot all
 * pass the check before any of them fails. A refused attempt records nothing.
 * PostgreSQL only (migration 005).
 *
 * One statement, race-free: INSERT … ON CONFLICT DO UPDATE locks the address's row, so
 * concurrent attempts queue on it and each decides on the log the previous one committed.
 */
export async function takeLoginAttempt(store: Store, w: LoginWindow): Promise<LoginAdmission> {
  const cutoff = w.now - w.windowMicros;
  const recent = sql`(select count(*) from unnest(f.log) as t where t > ${cutoff})`;
  const { rows } = await sql<{ admitted: boolean; oldest: number | null }>`
    insert into login_failures as f (email, log, expires_at, admitted)
    values (${w.email}, array[${w.now}::bigint], ${w.now + w.windowMicros}, true)
    on conflict (email) do update set
      log = array(select t from unnest(f.log) as t where t > ${cutoff} order by t)
        || case when ${recent} < ${w.max} then array[${w.now}::bigint] else array[]::bigint[] end,
      expires_at = case when ${recent} < ${w.max} then ${w.now + w.windowMicros} else f.expires_at end,
      admitted = ${recent} < ${w.max}
    returning f.admitted, (select min(t) from unnest(f.log) as t) as oldest
  `.execute(store.db);
  const row = rows[0]!;
  return { admitted: row.admitted, oldest: row.oldest };
}

/** A right password: the address starts afresh. */
export async function clearLoginFailures(store: Store, email: string): Promise<void> {
  await sql`delete from login_failures where email = ${email}`.execute(store.db);
}

/**
 * Drops addresses none of whose failures counts any more: logins for made-up addresses
 * would otherwise pile up. PostgreSQL only. Returns how many.
 */
export async function deleteExpiredLoginFailures(store: Store, now: number): Promise<number> {
  const result = await sql`delete from login_failures where expires_at <= ${now}`.execute(store.db);
  return Number(result.numAffectedRows ?? 0);
}
