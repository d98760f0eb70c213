import { isUtf8 } from 'node:buffer';
import { isoMicros, isoMillis } from '../clock.js';
import type { AttemptRow, EventRow, EventSummaryRow } from '../store/events.js';

type HeaderPairs = Array<[string, string]>;

/** Lower-cased name → value, duplicates joined with `, ` (DESIGN §7). */
export function headerObject(pairs: HeaderPairs): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}

/** Text when the bytes are valid UTF-8, else base64 — never a lossy decode. */
export function encodeBody(body: Buffer): { body: string; body_encoding: 'utf8' | 'base64' } {
  return isUtf8(body)
    ? { body: body.toString('utf8'), body_encoding: 'utf8' }
    : { body: body.toString('base64'), body_encoding: 'base64' };
}

export function presentEventSummary(row: EventSummaryRow) {
  return {
    id: row.id,
    endpoint: row.endpoint_id,
    method: row.method,
    path: row.path,
    received_at: isoMicros(row.received_at),
    source_ip: row.source_ip,
    size: row.size,
    content_type: row.content_type,
    signature: row.signature,
    signature_reason: row.signature_reason,
    forward_status: row.forward_status,
    attempts: row.attempts_started,
  };
}

export function presentAttempt(row: AttemptRow) {
  const response = row.response_body === null ? null : encodeBody(row.response_body);
  return {
    id: row.id,
    attempt: row.attempt,
    trigger: row.trigger,
    target_url: row.target_url,
    state: row.state,
    scheduled_at: isoMillis(row.scheduled_at),
    started_at: isoMillis(row.started_at),
    finished_at: isoMillis(row.finished_at),
    duration_ms: row.duration_ms,
    status_code: row.status_code,
    error: row.error,
    response_headers:
      row.response_headers === null
        ? null
        : headerObject(JSON.parse(row.response_headers) as HeaderPairs),
    response_body: response?.body ?? null,
    response_body_encoding: response?.body_encoding ?? null,
  };
}

export function presentEventDetail(row: EventRow, attempts: AttemptRow[]) {
  const rawHeaders = JSON.parse(row.headers) as HeaderPairs;
  return {
    ...presentEventSummary(row),
    headers: headerObject(rawHeaders),
    raw_headers: rawHeaders,
    ...encodeBody(row.body),
    truncated: row.truncated === 1,
    query_string: row.query_string,
    signature_key: row.signature_key,
    deliveries: attempts.map(presentAttempt),
  };
}

export type EventSummaryJson = ReturnType<typeof presentEventSummary>;
export type EventDetailJson = ReturnType<typeof presentEventDetail>;
export type AttemptJson = ReturnType<typeof presentAttempt>;
