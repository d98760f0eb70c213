import { sql } from 'kysely';
import type { Db } from '../db.js';
import type { AttemptResult } from './record.js';

interface EndpointOutcomes {
  lastAt: number;
  lastOk: boolean;
  sawSuccess: boolean;
  /** The first failure after the last success (or of the batch, without a success). */
  failingFrom: number | null;
}

function foldEndpointOutcomes(results: AttemptResult[]): Map<number, EndpointOutcomes> {
  const byEndpoint = new Map<number, EndpointOutcomes>();
  for (const r of [...results].sort((a, b) => a.finishedAt - b.finishedAt)) {
    const ok = r.state === 'succeeded';
    const seen = byEndpoint.get(r.endpointId) ?? {
      lastAt: r.finishedAt,
      lastOk: ok,
      sawSuccess: false,
      failingFrom: null,
    };
    seen.lastAt = r.finishedAt;
    seen.lastOk = ok;
    if (ok) {
      seen.sawSuccess = true;
      seen.failingFrom = null;
    } else {
      seen.failingFrom ??= r.finishedAt;
    }
    byEndpoint.set(r.endpointId, seen);
  }
  return byEndpoint;
}

/**
 * The forwarding-failing record the alerts worker reads: since when automatic
 * deliveries have failed without a success, and the last delivery's time and outcome.
 * A success after an alert moves `failing_state` to `recovering` (the alerts worker
 * sends the recovered notice).
 */
export async function recordEndpointOutcomes(db: Db, auto: AttemptResult[]): Promise<void> {
  const folded = [...foldEndpointOutcomes(auto)].sort((a, b) => a[0] - b[0]);
  for (const [endpointId, o] of folded) {
    await db
      .updateTable('endpoints')
      .set({
        last_delivery_at: o.lastAt,
        last_delivery_ok: o.lastOk ? 1 : 0,
        failing_since: o.lastOk
          ? null
          : o.sawSuccess
            ? o.failingFrom
            : sql<number>`coalesce(failing_since, ${o.failingFrom})`,
        ...(o.sawSuccess
          ? {
              failing_state: sql<
                'ok' | 'alerted' | 'recovering'
              >`case when failing_state = 'alerted'
                then 'recovering' else failing_state end`,
            }
          : {}),
      })
      .where('id', '=', endpointId)
      .execute();
  }
}
