import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, errorText } from '../api';
import { curlCommand, formatBytes, localDateTime, targetUrl, utcMicros } from '../format';
import { Link } from '../router';
import type { Attempt, Endpoint, EventDetail, EventSummary } from '../types';
import { AttemptTimeline } from './AttemptTimeline';
import { ForwardBadge, MethodBadge, REASONS, SignatureBadge } from './Badges';
import { BodyView } from './BodyView';
import { CopyButton } from './CopyButton';

function Signature({ event }: { event: EventDetail }) {
  if (event.signature === null)
    return <span className="muted">not checked (verification is off)</span>;
  return (
    <span className="signature">
      <SignatureBadge label={event.signature} reason={event.signature_reason} />
      {event.signature === 'invalid' && event.signature_reason ? (
        <span className="reason">
          {' '}
          — {REASONS[event.signature_reason] ?? event.signature_reason}
        </span>
      ) : null}
      {event.signature === 'valid' && event.signature_key === 'previous' ? (
        <span className="muted"> (matched the previous secret)</span>
      ) : null}
    </span>
  );
}

function Replay({
  event,
  endpoint,
  onDone,
}: {
  event: EventDetail;
  endpoint: Endpoint;
  onDone: () => void;
}) {
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const refused =
    event.signature === 'invalid'
      ? 'Requests with an invalid signature are never sent on.'
      : event.truncated
        ? 'The body was cut at the size limit, so it cannot be sent as it came.'
        : null;

  const replay = async (target: string | null) => {
    setBusy(true);
    setMessage(null);
    try {
      const attempt = await api<Attempt>(
        'POST',
        `/app/api/events/${event.id}/replay`,
        target ? { target_url: target } : {},
      );
      setMessage({ ok: true, text: `Replay queued as attempt #${attempt.attempt}.` });
      onDone();
    } catch (error) {
      setMessage({ ok: false, text: error instanceof ApiError ? error.problem : String(error) });
    } finally {
      setBusy(false);
    }
  };
  const submitCustom = (e: FormEvent) => {
    e.preventDefault();
    if (url.trim()) void replay(url.trim());
  };

  return (
    <div className="replay">
      {refused ? <p className="muted">{refused}</p> : null}
      <div className="actions">
        <button
          type="button"
          className="button primary"
          disabled={busy || refused !== null || !endpoint.forwarding}
          onClick={() => void replay(null)}
        >
          Replay
        </button>
        <span className="muted">
          {endpoint.forwarding ? (
            <>to {targetUrl(endpoint.forwarding, event.path, event.query_string)}</>
          ) : (
            <>
              No forwarding URL: <Link to={`/endpoints/${endpoint.id}/settings`}>set one</Link> or
              type a URL below.
            </>
          )}
        </span>
      </div>
      <form className="inline-form" onSubmit={submitCustom}>
        <label htmlFor={`replay-url-${event.id}`}>Replay to another URL</label>
        <div className="row">
          <input
            id={`replay-url-${event.id}`}
            type="url"
            placeholder="https://example.com/webhooks"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          <button
            type="submit"
            className="button"
            disabled={busy || refused !== null || url.trim() === ''}
          >
            Send
          </button>
        </div>
      </form>
      {message ? (
        <p className={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      ) : null}
    </div>
  );
}

function CurlCommand({ event, endpoint }: { event: EventDetail; endpoint: Endpoint }) {
  const [to, setTo] = useState<'capture' | 'forwarding'>('capture');
  const base = to === 'forwarding' && endpoint.forwarding ? endpoint.forwarding : endpoint.url;
  // Control bytes (NUL, CR…) do not survive a shell argument or a paste: such text goes
  // through base64 too, so the command sends exactly the captured bytes.
  const binary = event.body_encoding === 'base64' || CONTROL_BYTES.test(event.body);
  const body =
    binary && event.body_encoding === 'utf8'
      ? bytesToBase64(new TextEncoder().encode(event.body))
      : event.body;
  const command = curlCommand({
    method: event.method,
    url: targetUrl(base, event.path, event.query_string),
    headers: event.raw_headers,
    body,
    bodyEncoding: binary ? 'base64' : 'utf8',
  });
  return (
    <div className="curl">
      {endpoint.forwarding ? (
        <div className="segmented" role="group" aria-label="Send the command to">
          <button
            type="button"
            className="button small"
            aria-pressed={to === 'capture'}
            onClick={() => setTo('capture')}
          >
            This endpoint
          </button>
          <button
            type="button"
            className="button small"
            aria-pressed={to === 'forwarding'}
            onClick={() => setTo('forwarding')}
          >
            Forwarding URL
          </button>
        </div>
      ) : null}
      <div className="code-block">
        <pre className="code" tabIndex={0} aria-label="curl command">
          <code>{command}</code>
        </pre>
        <CopyButton text={command} label="Copy curl" />
      </div>
    </div>
  );
}

// eslint-disable-next-line no-control-regex
const CONTROL_BYTES = /[\u0000-\u0008\u000b-\u001f\u007f]/;

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Everything about one captured request, refetched when its attempts change. */
export function EventDetailView({
  endpoint,
  eventId,
  version,
  onChanged,
}: {
  endpoint: Endpoint;
  eventId: number;
  version: number;
  onChanged: (summary: EventSummary) => void;
}) {
  const [event, setEvent] = useState<EventDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [localVersion, setLocalVersion] = useState(0);
  const [cancelMessage, setCancelMessage] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    api<EventDetail>('GET', `/app/api/events/${eventId}`)
      .then((detail) => {
        if (!current) return;
        setEvent(detail);
        onChanged(detail);
      })
      .catch((e) => current && setError(errorText(e)));
    return () => {
      current = false;
    };
    // onChanged is a fresh closure on every render; the fetch depends on the versions only.
  }, [eventId, version, localVersion]);

  if (error) {
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  }
  if (!event) return <p role="status">Loading request…</p>;

  const pending = event.deliveries.some((d) => d.state === 'scheduled');
  const cancel = async () => {
    setCancelMessage(null);
    try {
      const detail = await api<EventDetail>('POST', `/app/api/events/${event.id}/cancel`);
      setEvent(detail);
      onChanged(detail);
      setCancelMessage('Retries cancelled.');
    } catch (e) {
      setCancelMessage(errorText(e));
    }
  };
  const query = event.query_string ? [...new URLSearchParams(event.query_string)] : [];

  return (
    <article className="event-detail" aria-labelledby="event-title">
      <Link className="back-link" to={`/endpoints/${endpoint.id}`}>
        ← All requests
      </Link>
      <h2 id="event-title" className="event-title">
        <MethodBadge method={event.method} />
        <span className="path">
          {event.path || '/'}
          {event.query_string ? <span className="query">?{event.query_string}</span> : null}
        </span>
        <span className="muted id">#{event.id}</span>
      </h2>

      <dl className="facts">
        <div>
          <dt>Received</dt>
          <dd>
            <time dateTime={event.received_at}>{utcMicros(event.received_at)}</time>
            <span className="muted block">{localDateTime(event.received_at)} local time</span>
          </dd>
        </div>
        <div>
          <dt>Source IP</dt>
          <dd>{event.source_ip}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>
            {formatBytes(event.size)} ({event.size.toLocaleString()} bytes)
            {event.truncated ? (
              <span className="badge warn"> truncated: only the first part was kept</span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Content type</dt>
          <dd>{event.content_type ?? <span className="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Signature</dt>
          <dd>
            <Signature event={event} />
          </dd>
        </div>
        <div>
          <dt>Forwarding</dt>
          <dd>
            {event.forward_status ? (
              <ForwardBadge status={event.forward_status} />
            ) : (
              <span className="muted">off when it arrived</span>
            )}
          </dd>
        </div>
      </dl>

      {query.length > 0 ? (
        <section>
          <h3>Query</h3>
          <table className="kv">
            <tbody>
              {query.map(([name, value], i) => (
                <tr key={i}>
                  <th scope="row">{name}</th>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}

      <section>
        <h3>
          Headers <span className="muted">({event.raw_headers.length}, in arrival order)</span>
        </h3>
        <table className="kv headers">
          <tbody>
            {event.raw_headers.map(([name, value], i) => (
              <tr key={i}>
                <th scope="row">{name}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section>
        <h3>Body</h3>
        <BodyView
          body={event.body}
          encoding={event.body_encoding}
          contentType={event.content_type}
          label="Request body"
          downloadName={`event-${event.id}-body`}
        />
      </section>

      <section>
        <h3>Deliveries</h3>
        <AttemptTimeline attempts={event.deliveries} eventId={event.id} />
        {pending ? (
          <div className="actions">
            <button type="button" className="button" onClick={() => void cancel()}>
              Cancel retries
            </button>
          </div>
        ) : null}
        {cancelMessage ? <p role="status">{cancelMessage}</p> : null}
        <Replay event={event} endpoint={endpoint} onDone={() => setLocalVersion((v) => v + 1)} />
      </section>

      <section>
        <h3>Send it again with curl</h3>
        <CurlCommand event={event} endpoint={endpoint} />
      </section>
    </article>
  );
}
