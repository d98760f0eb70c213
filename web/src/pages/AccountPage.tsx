import { useState } from 'react';
import { api, errorText } from '../api';
import { Ago } from '../components/Badges';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { useSession } from '../session';

const PLAN_NAMES = { free: 'Free', startup: 'Startup', business: 'Business' } as const;

export function AccountPage() {
  const { me, refresh } = useSession();
  const [newKey, setNewKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirmReplace, setConfirmReplace] = useState(false);
  const [busy, setBusy] = useState(false);
  const apiAccess = me.plan !== 'free';

  const createKey = async () => {
    setConfirmReplace(false);
    setBusy(true);
    setError(null);
    try {
      const { key } = await api<{ key: string }>('POST', '/app/api/api-key');
      setNewKey(key);
      await refresh();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="page narrow">
      <h1>Account</h1>
      <div className="card">
        <dl className="facts">
          <div>
            <dt>Email</dt>
            <dd>{me.email}</dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd>
              <span className="badge info">{PLAN_NAMES[me.plan]}</span>{' '}
              <span className="muted">
                {apiAccess
                  ? 'includes the REST API.'
                  : 'The REST API needs the Startup plan or higher.'}
              </span>
            </dd>
          </div>
          <div>
            <dt>Email alerts</dt>
            <dd>
              {me.email_alerts === false ? (
                <span className="muted">
                  off on this server (no SMTP_URL); alerts are still listed under Alerts and sent to
                  alert webhooks.
                </span>
              ) : (
                <>sent to {me.email}</>
              )}
            </dd>
          </div>
        </dl>
      </div>

      <div className="card">
        <h2>API key</h2>
        <p className="muted">
          Read-only access to your endpoints and events with{' '}
          <code>Authorization: Bearer &lt;key&gt;</code> at <code>/api/v1/</code> (
          <a href="/api/v1/openapi.json">OpenAPI description</a>).
        </p>
        {newKey ? (
          <div className="key-reveal" role="status">
            <p>
              <strong>Your new API key.</strong> Copy it now: it is shown only once, and Hookwatch
              keeps only a hash of it.
            </p>
            <div className="code-block">
              <code className="secret" data-testid="api-key">
                {newKey}
              </code>
              <CopyButton text={newKey} label="Copy key" />
            </div>
          </div>
        ) : null}
        {me.api_key ? (
          <dl className="facts">
            <div>
              <dt>Current key</dt>
              <dd>
                <code>{me.api_key.prefix}…</code>
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Ago iso={me.api_key.created_at} />
              </dd>
            </div>
            <div>
              <dt>Last used</dt>
              <dd>
                <Ago iso={me.api_key.last_used_at} />
              </dd>
            </div>
          </dl>
        ) : (
          <p>You have no API key.</p>
        )}
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="actions">
          <button
            type="button"
            className="button primary"
            disabled={busy}
            onClick={() => (me.api_key ? setConfirmReplace(true) : void createKey())}
          >
            {me.api_key ? 'Replace API key' : 'Create API key'}
          </button>
        </div>
      </div>
      <ConfirmDialog
        open={confirmReplace}
        title="Replace the API key?"
        confirmLabel="Replace key"
        danger
        onCancel={() => setConfirmReplace(false)}
        onConfirm={() => void createKey()}
      >
        <p>The current key stops working at once. Scripts that use it need the new one.</p>
      </ConfirmDialog>
    </section>
  );
}
