import { isoMicros, parseIsoMicros } from '../clock.js';
import { badRequest } from '../http/errors.js';
import type { EventCursor, EventSummaryRow } from '../store/events.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface PageQuery {
  limit: number;
  before: EventCursor | null;
}

export function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw badRequest(name, 'must be given once');
  return String(value);
}

const POSITIVE_INT = /^[1-9]\d{0,15}$/;

/**
 * `limit` (1–200, default 50), `before` (ISO-8601, exclusive) and `before_id`, the
 * tie-breaker `next` carries so that equal `received_at` values never skip or repeat an
 * event across pages. Unknown parameters are ignored.
 */
export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const limitText = single(query, 'limit');
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIMIT) {
      throw badRequest('limit', `must be an integer from 1 to ${MAX_LIMIT} (got "${limitText}")`);
    }
    limit = Number(limitText);
  }
  const beforeText = single(query, 'before');
  const beforeIdText = single(query, 'before_id');
  let before: EventCursor | null = null;
  if (beforeText !== undefined) {
    const micros = parseIsoMicros(beforeText);
    if (micros === null) {
      throw badRequest(
        'before',
        `must be an ISO-8601 time such as 2026-11-22T10:15:03.123456Z (got "${beforeText}")`,
      );
    }
    before = { receivedAt: micros, id: null };
  }
  if (beforeIdText !== undefined) {
    if (!POSITIVE_INT.test(beforeIdText)) {
      throw badRequest('before_id', `must be a positive integer (got "${beforeIdText}")`);
    }
    if (!before) throw badRequest('before_id', 'needs before as well');
    before.id = Number(beforeIdText);
  }
  return { limit, before };
}

/** Parses an optional positive integer id parameter such as `endpoint`. */
export function parseIdParam(query: Record<string, unknown>, name: string): number | null {
  const text = single(query, name);
  if (text === undefined) return null;
  if (!POSITIVE_INT.test(text))
    throw badRequest(name, `must be a positive integer id (got "${text}")`);
  return Number(text);
}

/**
 * Splits a page fetched with `limit + 1` rows into the page and the URL of the next one
 * (null on the last page: the extra row is how we know without a COUNT).
 */
export function paginate<T extends Pick<EventSummaryRow, 'received_at' | 'id'>>(
  base: string,
  rows: T[],
  limit: number,
  extra: Record<string, string> = {},
): { page: T[]; next: string | null } {
  if (rows.length <= limit) return { page: rows, next: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return {
    page,
    next: nextPageUrl(base, limit, { receivedAt: last.received_at, id: last.id }, extra),
  };
}

/**
 * As `paginate`, for a page whose scan stopped at `scannedTo` (see listFilteredEvents):
 * a page with fewer rows than `limit` still has a next one while older events remain.
 */
export function paginateScan<T extends Pick<EventSummaryRow, 'received_at' | 'id'>>(
  base: string,
  rows: T[],
  limit: number,
  scannedTo: EventCursor | null,
  extra: Record<string, string> = {},
): { page: T[]; next: string | null } {
  const paged = paginate(base, rows, limit, extra);
  if (paged.next !== null || scannedTo === null) return paged;
  return { page: paged.page, next: nextPageUrl(base, limit, scannedTo, extra) };
}

function nextPageUrl(
  base: string,
  limit: number,
  after: EventCursor,
  extra: Record<string, string>,
): string {
  const params = new URLSearchParams({
    ...extra,
    limit: String(limit),
    before: isoMicros(after.receivedAt),
    before_id: String(after.id),
  });
  return `${base}?${params.toString()}`;
}
