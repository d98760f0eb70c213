import { localDateTime, relativeTime } from '../format';
import type { Attempt } from '../types';
import { AttemptBadge } from './Badges';
import { BodyView } from './BodyView';

function AttemptItem({ attempt, eventId }: { attempt: Attempt; eventId: number }) {
  const when = attempt.finished_at ?? attempt.started_at ?? attempt.scheduled_at;
  return (
    <li className={`attempt attempt-${attempt.state}`}>
      <div className="attempt-head">
        <strong>#{attempt.attempt}</strong>
        <span className="muted">{attempt.trigger === 'replay' ? 'replay' : 'automatic'}</span>
        <AttemptBadge state={attempt.state} />
        {attempt.status_code !== null ? (
          <span className={`status ${attempt.status_code < 300 ? 'ok' : 'bad'}`}>
            HTTP {attempt.status_code}
          </span>
        ) : null}
        {attempt.duration_ms !== null ? (
          <span className="muted">{attempt.duration_ms} ms</span>
        ) : null}
        {when ? (
          <time className="muted" dateTime={when} title={localDateTime(when)}>
            {attempt.state === 'scheduled'
              ? `next try ${relativeTime(when)} (${localDateTime(when)})`
              : relativeTime(when)}
          </time>
        ) : null}
      </div>
      {attempt.target_url ? <p className="target">→ {attempt.target_url}</p> : null}
      {attempt.error ? <p className="error">{attempt.error}</p> : null}
      {attempt.response_headers || attempt.response_body ? (
        <details>
          <summary>Response</summary>
          {attempt.response_headers ? (
            <table className="kv">
              <tbody>
                {Object.entries(attempt.response_headers).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {attempt.response_body !== null ? (
            <BodyView
              body={attempt.response_body}
              encoding={attempt.response_body_encoding ?? 'utf8'}
              contentType={attempt.response_headers?.['content-type'] ?? null}
              label={`Response body of attempt ${attempt.attempt}`}
              downloadName={`event-${eventId}-attempt-${attempt.attempt}-response`}
            />
          ) : null}
        </details>
      ) : null}
    </li>
  );
}

/** Every delivery attempt in order, automatic and replays, with the next retry's time. */
export function AttemptTimeline({ attempts, eventId }: { attempts: Attempt[]; eventId: number }) {
  if (attempts.length === 0) return <p className="muted">No delivery attempts.</p>;
  return (
    <ol className="timeline" aria-label="Delivery attempts">
      {attempts.map((a) => (
        <AttemptItem key={a.id} attempt={a} eventId={eventId} />
      ))}
    </ol>
  );
}
