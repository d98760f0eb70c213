import { useCallback, useReducer, useRef } from 'react';
import { api } from '../api';
import type { EventSummary, Page } from '../types';

/** The list keeps at most this many rows; older ones are paged in again on demand. */
const MAX_ROWS = 1000;
const PAGE = 50;

/** What the list is narrowed to, on the server; null matches everything. */
export interface EventListFilter {
  method: string | null;
  signature: 'valid' | 'invalid' | 'none' | null;
}

export const matchesFilter = (event: EventSummary, filter: EventListFilter) =>
  (filter.method === null || event.method === filter.method) &&
  (filter.signature === null ||
    (filter.signature === 'none'
      ? event.signature === null
      : event.signature === filter.signature));

interface State {
  events: EventSummary[];
  loaded: boolean;
  hasMore: boolean;
  /** The query of the next page (its `before`, `before_id` and filter), or null at the end. */
  next: URLSearchParams | null;
}

type Action =
  | { type: 'replace'; page: Page<EventSummary> }
  | { type: 'append'; page: Page<EventSummary> }
  | { type: 'upsert'; event: EventSummary; insert: boolean };

// Newest first, as the API pages them: received_at (six-digit ISO sorts as text), then id.
const newerFirst = (a: EventSummary, b: EventSummary) =>
  a.received_at === b.received_at ? b.id - a.id : a.received_at < b.received_at ? 1 : -1;

// Only the query of `next` is kept: its origin is BASE_URL, which a browser behind a
// proxy may not reach; the path is this list's own.
const nextQuery = (page: Page<EventSummary>) =>
  page.next === null ? null : new URL(page.next).searchParams;

function reduce(state: State, action: Action): State {
  switch (action.type) {
    case 'replace':
      return {
        events: action.page.results,
        loaded: true,
        hasMore: action.page.next !== null,
        next: nextQuery(action.page),
      };
    case 'append': {
      const known = new Set(state.events.map((e) => e.id));
      const events = [...state.events, ...action.page.results.filter((e) => !known.has(e.id))];
      return { ...state, events, hasMore: action.page.next !== null, next: nextQuery(action.page) };
    }
    case 'upsert': {
      const index = state.events.findIndex((e) => e.id === action.event.id);
      if (index >= 0) {
        const events = state.events.slice();
        events[index] = action.event;
        return { ...state, events };
      }
      if (!action.insert) return state;
      const events = [action.event, ...state.events].sort(newerFirst);
      if (events.length <= MAX_ROWS) return { ...state, events };
      // Dropped rows are paged in again from the oldest row kept.
      const kept = events.slice(0, MAX_ROWS);
      const last = kept[kept.length - 1]!;
      const next = new URLSearchParams(state.next ?? undefined);
      next.set('before', last.received_at);
      next.set('before_id', String(last.id));
      return { ...state, events: kept, hasMore: true, next };
    }
  }
}

function filterQuery(filter: EventListFilter, limit: number): URLSearchParams {
  const query = new URLSearchParams({ limit: String(limit) });
  if (filter.method !== null) query.set('method', filter.method);
  if (filter.signature !== null) query.set('signature', filter.signature);
  return query;
}

/**
 * An endpoint's requests, newest first, narrowed by `filter` on the server: the first
 * page, older pages, and live updates. A filtered page reads a bounded stretch of the
 * endpoint's requests, so it may come back short while older ones remain (`hasMore`);
 * `searchedTo` is then how far back the search has gone.
 */
export function useEventList(endpointId: number, filter: EventListFilter) {
  const [state, dispatch] = useReducer(reduce, {
    events: [],
    loaded: false,
    hasMore: false,
    next: null,
  });
  const base = `/app/api/endpoints/${endpointId}/events`;
  const { method, signature } = filter;

  // A page that answers after the filter changed belongs to the old list: dropped.
  const generation = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    const query = filterQuery({ method, signature }, PAGE);
    const page = await api<Page<EventSummary>>('GET', `${base}?${query}`);
    if (mine === generation.current) dispatch({ type: 'replace', page });
  }, [base, method, signature]);

  const loadOlder = useCallback(
    async (limit = PAGE) => {
      const mine = generation.current;
      const query = new URLSearchParams(state.next ?? filterQuery({ method, signature }, limit));
      query.set('limit', String(limit));
      const page = await api<Page<EventSummary>>('GET', `${base}?${query}`);
      if (mine === generation.current) dispatch({ type: 'append', page });
    },
    [base, state.next, method, signature],
  );

  const upsert = useCallback(
    (event: EventSummary, insert: boolean) => dispatch({ type: 'upsert', event, insert }),
    [],
  );

  const searchedTo = state.next?.get('before') ?? null;
  return { ...state, searchedTo, reload, loadOlder, upsert };
}
