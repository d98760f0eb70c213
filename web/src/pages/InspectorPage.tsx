import { type KeyboardEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { api, errorText } from '../api';
import { ForwardBadge, MethodBadge, SignatureBadge } from '../components/Badges';
import { CopyButton } from '../components/CopyButton';
import { EventDetailView } from '../components/EventDetailView';
import { formatBytes, isToday, localDateTime, localTimeMs } from '../format';
import { matchesFilter, useEventList } from '../hooks/useEventList';
import { type LiveMessage, type LiveStatus, useLiveFeed } from '../hooks/useLiveFeed';
import { Link } from '../router';
import type { Endpoint } from '../types';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
type SignatureFilter = 'all' | 'valid' | 'invalid' | 'none';

const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not live',
};

function LiveIndicator({ status }: { status: LiveStatus }) {
  return (
    <span
      className={`live live-${status}`}
      role="status"
      title="New requests appear here without reloading"
    >
      <span className="dot" aria-hidden="true" />
      {LIVE_TEXT[status]}
    </span>
  );
}

/** What a brand-new endpoint shows: its URL and a first request to send. */
function FirstRequest({ endpoint }: { endpoint: Endpoint }) {
  const curl = `curl -X POST ${endpoint.url} -H 'content-type: application/json' -d '{"hello":"world"}'`;
  return (
    <div className="empty teach">
      <h2>Waiting for the first request</h2>
      <p>Point a webhook sender at this URL, or send a request yourself:</p>
      <div className="code-block">
        <pre>
          <code>{curl}</code>
        </pre>
        <CopyButton text={curl} label="Copy command" />
      </div>
      <p className="muted">
        It shows up here the moment it arrives: this page is live. Any method, path after the token
        and body is captured as it was sent.
      </p>
    </div>
  );
}

export function InspectorPage({
  endpointId,
  eventId,
}: {
  endpointId: number;
  eventId: number | null;
}) {
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [gone, setGone] = useState(false);
  const [method, setMethod] = useState('all');
  const [signature, setSignature] = useState<SignatureFilter>('all');
  const [detailVersion, setDetailVersion] = useState(0);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const filter = useMemo(
    () => ({
      method: method === 'all' ? null : method,
      signature: signature === 'all' ? null : signature,
    }),
    [method, signature],
  );
  const filtered = method !== 'all' || signature !== 'all';
  const list = useEventList(endpointId, filter);
  const { reload, upsert } = list;

  useEffect(() => {
    api<Endpoint>('GET', `/app/api/endpoints/${endpointId}`)
      .then(setEndpoint)
      .catch((e) => setError(errorText(e)));
  }, [endpointId]);

  // The filters apply on the server, to every request the endpoint has kept.
  useEffect(() => {
    setError(null);
    reload().catch((e) => setError(errorText(e)));
  }, [reload]);

  const newestId = list.loaded ? list.events.reduce((max, e) => Math.max(max, e.id), 0) : null;
  const oldest = list.events[list.events.length - 1];
  const onMessage = useCallback(
    (message: LiveMessage) => {
      switch (message.type) {
        case 'captured': {
          const isNew = !list.events.some((e) => e.id === message.event.id);
          upsert(message.event, matchesFilter(message.event, filter));
          if (isNew) {
            setEndpoint(
              (ep) =>
                ep && {
                  ...ep,
                  last_event_at: message.event.received_at,
                  events_total: ep.events_total + 1,
                },
            );
          }
          break;
        }
        case 'attempt':
          upsert(
            message.event,
            matchesFilter(message.event, filter) &&
              (!list.hasMore ||
                (oldest !== undefined && message.event.received_at >= oldest.received_at)),
          );
          if (message.event.id === eventId) setDetailVersion((v) => v + 1);
          break;
        case 'reset':
          void reload();
          setDetailVersion((v) => v + 1);
          break;
        case 'gone':
          setGone(true);
          break;
      }
    },
    [upsert, reload, eventId, list.hasMore, list.events, oldest, filter],
  );
  const status = useLiveFeed(endpointId, newestId, onMessage);

  const methods = useMemo(() => {
    const seen = new Set(METHODS);
    for (const e of list.events) seen.add(e.method);
    return [...seen];
  }, [list.events]);

  const loadOlder = async () => {
    setLoadingOlder(true);
    try {
      await list.loadOlder();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoadingOlder(false);
    }
  };

  // Arrow keys move between requests in the list.
  const onListKey = (event: KeyboardEvent<HTMLOListElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const links = [...event.currentTarget.querySelectorAll<HTMLAnchorElement>('a.event-row')];
    const index = links.indexOf(document.activeElement as HTMLAnchorElement);
    const next =
      links[Math.max(0, Math.min(links.length - 1, index + (event.key === 'ArrowDown' ? 1 : -1)))];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  };

  if (gone) {
    return (
      <section className="page narrow">
        <h1>Endpoint deleted</h1>
        <p>
          This endpoint no longer exists. <Link to="/">Back to your endpoints</Link>
        </p>
      </section>
    );
  }
  if (error && !endpoint) {
    return (
      <section className="page narrow">
        <h1>Endpoint</h1>
        <p className="error" role="alert">
          {error}
        </p>
        <Link to="/">Back to your endpoints</Link>
      </section>
    );
  }
  if (!endpoint) return <p role="status">Loading…</p>;

  return (
    <section className={`inspector${eventId !== null ? ' has-selection' : ''}`}>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/">Endpoints</Link> /
          </p>
          <h1>
            {endpoint.name} {endpoint.is_active ? null : <span className="badge warn">paused</span>}
          </h1>
        </div>
        <div className="head-actions">
          <LiveIndicator status={status} />
          <Link className="button" to={`/endpoints/${endpoint.id}/settings`}>
            Settings
          </Link>
        </div>
      </div>
      <div className="url-bar">
        <span className="label" id="capture-url-label">
          Capture URL
        </span>
        <code aria-labelledby="capture-url-label" className="capture-url">
          {endpoint.url}
        </code>
        <CopyButton text={endpoint.url} label="Copy URL" />
        <span className="muted count">
          {endpoint.events_total.toLocaleString()}{' '}
          {endpoint.events_total === 1 ? 'request' : 'requests'}
        </span>
      </div>

      {list.loaded && list.events.length === 0 && !list.hasMore && !filtered ? (
        <FirstRequest endpoint={endpoint} />
      ) : (
        <div className="split">
          <div className="list-pane">
            <div className="filters" role="group" aria-label="Filter requests">
              <label>
                Method
                <select value={method} onChange={(e) => setMethod(e.target.value)}>
                  <option value="all">All</option>
                  {methods.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Signature
                <select
                  value={signature}
                  onChange={(e) => setSignature(e.target.value as SignatureFilter)}
                >
                  <option value="all">All</option>
                  <option value="valid">Valid</option>
                  <option value="invalid">Invalid</option>
                  <option value="none">Not checked</option>
                </select>
              </label>
            </div>
            {!list.loaded ? <p role="status">Loading requests…</p> : null}
            <ol
              className="event-list"
              aria-label="Captured requests, newest first"
              onKeyDown={onListKey}
            >
              {list.events.map((e) => (
                <li key={e.id}>
                  <Link
                    to={`/endpoints/${endpoint.id}/events/${e.id}`}
                    className="event-row"
                    aria-current={e.id === eventId ? 'true' : undefined}
                  >
                    <span className="row-top">
                      <MethodBadge method={e.method} />
                      <span className="path">{e.path || '/'}</span>
                      <time
                        dateTime={e.received_at}
                        title={localDateTime(e.received_at)}
                        className="when"
                      >
                        {isToday(e.received_at)
                          ? localTimeMs(e.received_at)
                          : localDateTime(e.received_at)}
                      </time>
                    </span>
                    <span className="row-bottom">
                      <span className="muted">#{e.id}</span>
                      <span className="muted">{formatBytes(e.size)}</span>
                      <SignatureBadge label={e.signature} reason={e.signature_reason} />
                      <ForwardBadge status={e.forward_status} />
                    </span>
                  </Link>
                </li>
              ))}
            </ol>
            {error ? (
              <p className="error pad" role="alert">
                {error}
              </p>
            ) : null}
            {list.loaded && list.events.length === 0 && !list.hasMore ? (
              <p className="muted pad">No request matches these filters.</p>
            ) : null}
            {filtered &&
            list.hasMore &&
            list.searchedTo !== null &&
            (oldest === undefined || list.searchedTo < oldest.received_at) ? (
              <p className="muted pad" role="status">
                Searched back to{' '}
                <time dateTime={list.searchedTo}>{localDateTime(list.searchedTo)}</time>
                {list.events.length === 0 ? '; no match yet.' : '.'}
              </p>
            ) : null}
            {list.hasMore ? (
              <button
                type="button"
                className="button wide"
                onClick={() => void loadOlder()}
                disabled={loadingOlder}
              >
                {loadingOlder
                  ? 'Loading…'
                  : filtered
                    ? 'Search older requests'
                    : 'Load older requests'}
              </button>
            ) : null}
          </div>
          <div className="detail-pane">
            {eventId !== null ? (
              <EventDetailView
                key={eventId}
                endpoint={endpoint}
                eventId={eventId}
                version={detailVersion}
                onChanged={(summary) => upsert(summary, false)}
              />
            ) : (
              <div className="empty">
                <p>Select a request to see its headers, body, signature and deliveries.</p>
              </div>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
