import { useEffect, useRef, useState } from 'react';
import { ApiError, api } from '../api';
import type { EventSummary } from '../types';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export type LiveMessage =
  | { type: 'captured'; event: EventSummary }
  | { type: 'attempt'; event: EventSummary }
  /** Updates may have been missed (too many, or a reconnect): reload what is shown. */
  | { type: 'reset' }
  | { type: 'gone' };

/** After a refused reconnect, how long until we try a fresh stream. */
const RETRY_MS = 3000;

/**
 * The endpoint's live stream (SSE). The browser reconnects by itself with Last-Event-ID;
 * when the server refuses outright (401, 404) the stream is closed and we find out why.
 * `startAfter` is the newest event id the page already has (null: not loaded yet).
 */
export function useLiveFeed(
  endpointId: number,
  startAfter: number | null,
  onMessage: (message: LiveMessage) => void,
): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const handler = useRef(onMessage);
  handler.current = onMessage;
  const ready = startAfter !== null;
  const start = useRef(startAfter);
  start.current ??= startAfter;

  useEffect(() => {
    if (!ready) return;
    let lastId = start.current ?? 0;
    let source: EventSource | null = null;
    let timer: number | undefined;
    let everOpen = false;
    let stopped = false;

    const connect = () => {
      if (stopped) return;
      source = new EventSource(`/app/api/endpoints/${endpointId}/stream?after=${lastId}`);
      const track = (event: MessageEvent) => {
        if (event.lastEventId) lastId = Math.max(lastId, Number(event.lastEventId));
      };
      source.onopen = () => {
        setStatus('live');
        // Attempt results that finished while we were away are not replayed by id.
        if (everOpen) handler.current({ type: 'reset' });
        everOpen = true;
      };
      source.addEventListener('captured', (event) => {
        track(event);
        handler.current({ type: 'captured', event: JSON.parse(event.data) as EventSummary });
      });
      source.addEventListener('attempt', (event) => {
        handler.current({ type: 'attempt', event: JSON.parse(event.data) as EventSummary });
      });
      source.addEventListener('reset', (event) => {
        track(event);
        handler.current({ type: 'reset' });
      });
      source.onerror = () => {
        if (!source || source.readyState === EventSource.CONNECTING) {
          setStatus('reconnecting');
          return;
        }
        source.close();
        setStatus('reconnecting');
        api('GET', `/app/api/endpoints/${endpointId}`)
          .then(() => {
            timer = window.setTimeout(connect, RETRY_MS);
          })
          .catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 404) {
              setStatus('stopped');
              handler.current({ type: 'gone' });
            } else if (error instanceof ApiError && error.status === 401) {
              setStatus('stopped'); // the app shows the login page
            } else {
              timer = window.setTimeout(connect, RETRY_MS);
            }
          });
      };
    };
    connect();
    return () => {
      stopped = true;
      source?.close();
      window.clearTimeout(timer);
    };
  }, [endpointId, ready]);

  return status;
}
