import { sql } from 'kysely';
import { type Store, writeTransaction } from './db.js';
import type { ForwardStatus, SignatureKey, SignatureLabel, SignatureReason } from './schema.js';

export interface CapturedEvent {
  endpointId: number;
  userId: number;
  method: string;
  path: string;
  queryString: string;
  /** The raw ordered [name, value] pairs as JSON text. */
  headers: string;
  body: Buffer;
  size: number;
  contentType: string | null;
  sourceIp: string;
  receivedAt: number;
  truncated: boolean;
  signature: SignatureLabel | null;
  signatureReason: SignatureReason | null;
  signatureKey: SignatureKey | null;
  forwardStatus: ForwardStatus | null;
  /** Set when attempt 1 is queued with the event: the target as of capture time. */
  firstAttemptUrl: string | null;
}

// Well under SQLite's and PostgreSQL's bound-parameter limits at 17 columns a row.
const CHUNK = 500;

/**
 * Group commit: one transaction for a whole batch — the events, their first delivery
 * attempts and the endpoint counters — so the fsync is paid once per batch.
 * Returns the event ids in the order of `items`.
 */
export async function insertCapturedEvents(
  store: Store,
  items: CapturedEvent[],
): Promise<number[]> {
  if (items.length === 0) return [];
  return writeTransaction(store, async (trx) => {
    const ids: number[] = [];
    for (let start = 0; start < items.length; start += CHUNK) {
      const chunk = items.slice(start, start + CHUNK);
      const rows = await trx
        .insertInto('events')
        .values(
          chunk.map((e) => ({
            endpoint_id: e.endpointId,
            user_id: e.userId,
            method: e.method,
            path: e.path,
            query_string: e.queryString,
            headers: e.headers,
            body: e.body,
            size: e.size,
            content_type: e.contentType,
            source_ip: e.sourceIp,
            received_at: e.receivedAt,
            truncated: e.truncated ? 1 : 0,
            signature: e.signature,
            signature_reason: e.signatureReason,
            signature_key: e.signatureKey,
            forward_status: e.forwardStatus,
          })),
        )
        .returning('id')
        .execute();
      // One statement assigns ascending ids in VALUES order; RETURNING's own order is
      // not promised by SQLite, so the ids are sorted rather than trusted positionally.
      ids.push(...rows.map((r) => r.id).sort((a, b) => a - b));
    }

    const attempts = items.flatMap((e, i) =>
      e.firstAttemptUrl === null
        ? []
        : [
            {
              event_id: ids[i]!,
              endpoint_id: e.endpointId,
              attempt: 1,
              auto_seq: 1,
              trigger: 'auto' as const,
              target_url: e.firstAttemptUrl,
              state: 'scheduled' as const,
              scheduled_at: e.receivedAt,
            },
          ],
    );
    for (let start = 0; start < attempts.length; start += CHUNK) {
      await trx
        .insertInto('attempts')
        .values(attempts.slice(start, start + CHUNK))
        .execute();
    }

    const perEndpoint = new Map<number, { count: number; last: number }>();
    for (const e of items) {
      const seen = perEndpoint.get(e.endpointId);
      if (seen) {
        seen.count += 1;
        seen.last = Math.max(seen.last, e.receivedAt);
      } else {
        perEndpoint.set(e.endpointId, { count: 1, last: e.receivedAt });
      }
    }
    const intType = store.dialect === 'postgres' ? sql`bigint` : sql`integer`;
    // Ascending id order, so concurrent batches on several instances lock rows in the
    // same order and cannot deadlock.
    for (const [endpointId, { count, last }] of [...perEndpoint].sort((a, b) => a[0] - b[0])) {
      await trx
        .updateTable('endpoints')
        .set({
          events_total: sql`events_total + ${count}`,
          last_event_at: sql`case when last_event_at is null or last_event_at < ${last} then ${last} else last_event_at end`,
          silence_deadline: sql`case when silence_minutes is null then null
            else (case when coalesce(silence_anchor_at, 0) > ${last} then silence_anchor_at else ${last} end)
              + cast(silence_minutes * 60000000 as ${intType}) end`,
          // Traffic after a silence alert: the alerts worker sends the recovered notice.
          silence_state: sql`case when silence_state = 'alerted' then 'recovering' else silence_state end`,
        })
        .where('id', '=', endpointId)
        .execute();
    }
    return ids;
  });
}
