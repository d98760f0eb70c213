import { sql } from 'kysely';
import type { Store } from './db.js';

export interface AddressHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** When the window ends (microseconds). */
  windowEndsAt: number;
}

/**
 * Counts one hit on `key` in a fixed window of `windowMicros`, starting a new window when
 * the last one ended. One statement, race-free across instances (the upsert locks the
 * key's row). PostgreSQL only (migration 005).
 */
export async function countAddressHit(
  store: Store,
  hit: { key: string; now: number; windowMicros: number },
): Promise<AddressHit> {
  const { key, now, windowMicros } = hit;
  const { rows } = await sql<{ hits: number; window_ends_at: number }>`
    insert into address_limits as l (key, hits, window_ends_at)
    values (${key}, 1, ${now + windowMicros})
    on conflict (key) do update set
      hits = case when l.window_ends_at <= ${now} then 1 else l.hits + 1 end,
      window_ends_at = case when l.window_ends_at <= ${now} then ${now + windowMicros}
        else l.window_ends_at end
    returning l.hits, l.window_ends_at
  `.execute(store.db);
  const row = rows[0]!;
  return { hits: row.hits, windowEndsAt: Number(row.window_ends_at) };
}

/** Drops windows that ended: a stream of new addresses would otherwise pile up rows. */
export async function deleteEndedAddressLimits(store: Store, now: number): Promise<number> {
  const result = await sql`delete from address_limits where window_ends_at <= ${now}`.execute(
    store.db,
  );
  return Number(result.numAffectedRows ?? 0);
}
