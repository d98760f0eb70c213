import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, errorText } from '../api';
import { Ago } from '../components/Badges';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { Link, navigate } from '../router';
import { SCHEME_NAMES } from '../schemes';
import type { Endpoint } from '../types';

/** Forwarding health in a few words: where to, and whether it works. */
export function ForwardingHealth({ endpoint }: { endpoint: Endpoint }) {
  if (!endpoint.forwarding) return <span className="muted">off</span>;
  let health = <span className="badge muted">no deliveries yet</span>;
  if (endpoint.forwarding_failing_since) {
    health = (
      <span className="badge bad">
        failing since <Ago iso={endpoint.forwarding_failing_since} />
      </span>
    );
  } else if (endpoint.last_delivery_ok === true) {
    health = <span className="badge ok">healthy</span>;
  } else if (endpoint.last_delivery_ok === false) {
    health = <span className="badge warn">last delivery failed</span>;
  }
  return (
    <span className="forwarding">
      <span className="url-text" title={endpoint.forwarding}>
        {endpoint.forwarding}
      </span>{' '}
      {health}
    </span>
  );
}

export function EndpointsPage() {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);

  useEffect(() => {
    api<{ count: number; results: Endpoint[] }>('GET', '/app/api/endpoints')
      .then((page) => setEndpoints(page.results))
      .catch((error) => setLoadError(errorText(error)));
  }, []);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setCreating(true);
    setCreateError(null);
    try {
      const endpoint = await api<Endpoint>('POST', '/app/api/endpoints', {
        name: name.trim() || 'Untitled endpoint',
      });
      navigate(`/endpoints/${endpoint.id}`);
    } catch (error) {
      setCreateError(error instanceof ApiError ? error.problem : String(error));
      setCreating(false);
    }
  };

  const remove = async (endpoint: Endpoint) => {
    setDeleting(null);
    try {
      await api('DELETE', `/app/api/endpoints/${endpoint.id}`);
      setEndpoints((list) => list?.filter((e) => e.id !== endpoint.id) ?? null);
    } catch (error) {
      setLoadError(errorText(error));
    }
  };

  return (
    <section className="page">
      <div className="page-head">
        <h1>Endpoints</h1>
      </div>
      <form className="create-form" onSubmit={create}>
        <Field
          id="new-endpoint-name"
          label="New endpoint"
          hint="A name you will recognise, such as the sender: “Stripe live”."
          error={createError}
        >
          {(props) => (
            <input
              {...props}
              placeholder="Stripe live"
              maxLength={200}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button primary" disabled={creating}>
          Create endpoint
        </button>
      </form>

      {loadError ? (
        <p className="error" role="alert">
          {loadError}
        </p>
      ) : null}
      {endpoints === null && !loadError ? <p role="status">Loading endpoints…</p> : null}
      {endpoints?.length === 0 ? (
        <div className="empty">
          <h2>No endpoints yet</h2>
          <p>
            An endpoint is a URL you give to a webhook sender. Hookwatch keeps every request sent to
            it, checks its signature, and can forward it to your own server.
          </p>
        </div>
      ) : null}
      {endpoints && endpoints.length > 0 ? (
        <table className="endpoints">
          <caption className="visually-hidden">Your endpoints</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Capture URL</th>
              <th scope="col">Last event</th>
              <th scope="col">Events</th>
              <th scope="col">Verification</th>
              <th scope="col">Forwarding</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint) => (
              <tr key={endpoint.id}>
                <th scope="row" data-label="Name">
                  <Link to={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link>{' '}
                  {endpoint.is_active ? null : <span className="badge warn">paused</span>}
                </th>
                <td data-label="URL">
                  <span className="url-cell">
                    <code className="url-text" title={endpoint.url}>
                      {endpoint.url}
                    </code>
                    <CopyButton text={endpoint.url} label="Copy URL" />
                  </span>
                </td>
                <td data-label="Last event">
                  <Ago iso={endpoint.last_event_at} />
                </td>
                <td data-label="Events" className="num">
                  {endpoint.events_total.toLocaleString()}
                </td>
                <td data-label="Verification">
                  {endpoint.verify_scheme ? (
                    SCHEME_NAMES[endpoint.verify_scheme]
                  ) : (
                    <span className="muted">off</span>
                  )}
                </td>
                <td data-label="Forwarding">
                  <ForwardingHealth endpoint={endpoint} />
                </td>
                <td className="row-actions">
                  <Link className="button small" to={`/endpoints/${endpoint.id}/settings`}>
                    Settings
                  </Link>
                  <button
                    type="button"
                    className="button small danger-text"
                    onClick={() => setDeleting(endpoint)}
                    aria-label={`Delete ${endpoint.name}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete endpoint"
        danger
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      >
        <p>
          Its {deleting?.events_total.toLocaleString()} captured requests are deleted with it, and
          its URL stops accepting requests (senders get 404). This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
