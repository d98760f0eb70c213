import { badRequest } from '../http/errors.js';
import type { EventFilter } from '../store/events.js';
import { single } from './paging.js';

// An HTTP method is a token; Node's parser admits only known ones, all letters and `-`
// (`M-SEARCH`). Stored as sent, which for every known method is upper case.
const METHOD = /^[A-Za-z][A-Za-z-]{0,31}$/;
const SIGNATURES = ['valid', 'invalid', 'none'] as const;

/**
 * The inspector's filters on an endpoint's list: `method` (any case) and `signature`
 * (`valid`, `invalid`, or `none` for events whose endpoint verified nothing).
 */
export function parseEventFilter(query: Record<string, unknown>): EventFilter {
  const method = single(query, 'method');
  if (method !== undefined && !METHOD.test(method)) {
    throw badRequest('method', `must be an HTTP method such as POST (got "${method}")`);
  }
  const signature = single(query, 'signature');
  if (signature !== undefined && !(SIGNATURES as readonly string[]).includes(signature)) {
    throw badRequest('signature', `must be one of ${SIGNATURES.join(', ')} (got "${signature}")`);
  }
  return {
    method: method === undefined ? null : method.toUpperCase(),
    signature: (signature as EventFilter['signature'] | undefined) ?? null,
  };
}

export const isFiltering = (filter: EventFilter) =>
  filter.method !== null || filter.signature !== null;

/** The filter as query parameters, for the `next` link. */
export function filterParams(filter: EventFilter): Record<string, string> {
  const params: Record<string, string> = {};
  if (filter.method !== null) params.method = filter.method;
  if (filter.signature !== null) params.signature = filter.signature;
  return params;
}
