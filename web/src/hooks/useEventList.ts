import { useCallback, useReducer } from 'react';
import { api } from '../api';
import type { EventSummary, Page } from '../types';

/** The list keeps at most this many rows; older ones are paged in again on demand. */
const MAX_ROWS = 1000;
const PAGE = 50;

interface State {
  events: EventSummary[];
  loaded: boolean;
  hasMore: boolean;
}

type Action =
  | { type: 'replace'; page: Page<EventSummary> }
  | { type: 'append'; page: Page<EventSummary> }
  | { type: 'upsert'; event: EventSummary; insert: boolean };

// Newest first, as the API pages them: received_at (six-digit ISO sorts as text), then id.
const newerFirst = (a: EventSummary, b: EventSummary) =>
  a.received_at === b.received_at ? b.id - a.id : a.received_at < b.received_at ? 1 : -1;

function reduce(state: State, action: Action): State {
  switch (action.type) {
    case 'replace':
      return { events: action.page.results, loaded: true, hasMore: action.page.next !== null };
    case 'append': {
      const known = new Set(state.events.map((e) => e.id));
      const events = [...state.events, ...action.page.results.filter((e) => !known.has(e.id))];
      return { ...state, events, hasMore: action.page.next !== null };
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
      return { ...state, events: events.slice(0, MAX_ROWS), hasMore: true };
    }
  }
}

/** An endpoint's requests, newest first: the first page, older pages, and live updates. */
export function useEventList(endpointId: number) {
  const [state, dispatch] = useReducer(reduce, { events: [], loaded: false, hasMore: false });
  const base = `/app/api/endpoints/${endpointId}/events`;

  const reload = useCallback(async () => {
    dispatch({
      type: 'replace',
      page: await api<Page<EventSummary>>('GET', `${base}?limit=${PAGE}`),
    });
  }, [base]);

  const loadOlder = useCallback(
    async (limit = PAGE) => {
      const last = state.events[state.events.length - 1];
      const query = new URLSearchParams({ limit: String(limit) });
      if (last) {
        query.set('before', last.received_at);
        query.set('before_id', String(last.id));
      }
      dispatch({ type: 'append', page: await api<Page<EventSummary>>('GET', `${base}?${query}`) });
    },
    [base, state.events],
  );

  const upsert = useCallback(
    (event: EventSummary, insert: boolean) => dispatch({ type: 'upsert', event, insert }),
    [],
  );

  return { ...state, reload, loadOlder, upsert };
}
