import { useEffect, useState } from 'react';
import { api, errorText, pathOf } from '../api';
import { Ago } from '../components/Badges';
import { localDateTime } from '../format';
import { Link } from '../router';
import type { AlertChannel, AlertKind, AlertNotice, Page } from '../types';

const KINDS: Record<AlertKind, [string, string]> = {
  silence: ['Silent', 'bad'],
  silence_recovered: ['Traffic resumed', 'ok'],
  failing: ['Forwarding failing', 'bad'],
  failing_recovered: ['Forwarding recovered', 'ok'],
};

function describe(alert: AlertNotice): string {
  switch (alert.kind) {
    case 'silence':
      return `No request for ${alert.threshold_minutes ?? '?'} min${alert.since ? ` (last activity ${localDateTime(alert.since)})` : ''}.`;
    case 'silence_recovered':
      return 'Requests are arriving again.';
    case 'failing':
      return `Deliveries have failed without a success${alert.since ? ` since ${localDateTime(alert.since)}` : ''}.`;
    case 'failing_recovered':
      return 'A delivery succeeded again.';
  }
}

function Channel({ name, channel }: { name: string; channel: AlertChannel }) {
  const tone = { sent: 'ok', failed: 'bad', pending: 'info', off: 'muted' }[channel.status];
  const where = channel.to ?? channel.url;
  return (
    <li>
      <span className="channel-name">{name}</span>{' '}
      <span className={`badge ${tone}`}>{channel.status}</span>
      {where && channel.status !== 'off' ? <span className="muted"> {where}</span> : null}
      {channel.tries > 1 ? <span className="muted"> · {channel.tries} tries</span> : null}
      {channel.error ? <span className="error"> {channel.error}</span> : null}
    </li>
  );
}

export function AlertsPage() {
  const [alerts, setAlerts] = useState<AlertNotice[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async (path: string, append: boolean) => {
    try {
      const page = await api<Page<AlertNotice>>('GET', path);
      setAlerts((current) => (append && current ? [...current, ...page.results] : page.results));
      setNext(page.next);
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    void load('/app/api/alerts?limit=50', false);
  }, []);

  return (
    <section className="page">
      <h1>Alerts</h1>
      <p className="muted">
        Silence and forwarding alerts for all your endpoints, newest first. Set them up in an
        endpoint’s settings.
      </p>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {alerts === null && !error ? <p role="status">Loading alerts…</p> : null}
      {alerts?.length === 0 ? (
        <div className="empty">
          <h2>No alerts yet</h2>
          <p>
            When an endpoint with a silence threshold goes quiet, or forwarding keeps failing, the
            alert shows here.
          </p>
        </div>
      ) : null}
      {alerts && alerts.length > 0 ? (
        <ol className="alert-list">
          {alerts.map((alert) => {
            const [title, tone] = KINDS[alert.kind] ?? [alert.kind, 'info'];
            return (
              <li key={alert.id} className="card alert">
                <div className="alert-head">
                  <span className={`badge ${tone}`}>{title}</span>
                  <strong>
                    {alert.endpoint !== null ? (
                      <Link to={`/endpoints/${alert.endpoint}`}>{alert.endpoint_name}</Link>
                    ) : (
                      <>{alert.endpoint_name} (deleted)</>
                    )}
                  </strong>
                  <span className="spacer" />
                  <Ago iso={alert.created_at} />
                </div>
                <p>{describe(alert)}</p>
                <ul className="channels" aria-label="Channels">
                  <Channel name="Email" channel={alert.channels.email} />
                  <Channel name="Webhook" channel={alert.channels.webhook} />
                </ul>
                {alert.next_try_at ? (
                  <p className="muted">
                    Next try <Ago iso={alert.next_try_at} />
                  </p>
                ) : null}
              </li>
            );
          })}
        </ol>
      ) : null}
      {next ? (
        <button type="button" className="button" onClick={() => void load(pathOf(next), true)}>
          Load older alerts
        </button>
      ) : null}
    </section>
  );
}
