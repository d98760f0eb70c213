import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, errorText } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { Link, navigate } from '../router';
import { SCHEME_HINTS, SCHEME_NAMES } from '../schemes';
import type { Endpoint, VerifyScheme } from '../types';
import { ForwardingHealth } from './EndpointsPage';

interface Form {
  name: string;
  forwardingOn: boolean;
  forwarding: string;
  scheme: VerifyScheme | '';
  secret: string;
  signatureHeader: string;
  silenceOn: boolean;
  silenceMinutes: string;
  alertWebhookUrl: string;
}

function formOf(e: Endpoint): Form {
  return {
    name: e.name,
    forwardingOn: e.forwarding !== null,
    forwarding: e.forwarding ?? '',
    scheme: e.verify_scheme ?? '',
    secret: '',
    signatureHeader: e.signature_header ?? '',
    silenceOn: e.silence_minutes !== null,
    silenceMinutes: e.silence_minutes === null ? '60' : String(e.silence_minutes),
    alertWebhookUrl: e.alert_webhook_url ?? '',
  };
}

type Errors = Partial<Record<string, string>>;

/** Only what changed goes in the PATCH: an untouched field is never re-validated or reset. */
function changesOf(e: Endpoint, f: Form): { changes: Record<string, unknown>; errors: Errors } {
  const changes: Record<string, unknown> = {};
  const errors: Errors = {};
  if (f.name.trim() !== e.name) changes.name = f.name;
  const forwarding = f.forwardingOn ? f.forwarding.trim() : null;
  if (f.forwardingOn && forwarding === '')
    errors.forwarding = 'Type the URL to forward to, or turn forwarding off.';
  else if (forwarding !== e.forwarding) changes.forwarding = forwarding;
  const scheme = f.scheme === '' ? null : f.scheme;
  if (scheme !== e.verify_scheme) changes.verify_scheme = scheme;
  if (f.secret.trim() !== '') changes.signing_secret = f.secret;
  const header =
    f.scheme === 'hmac_sha256' && f.signatureHeader.trim() !== '' ? f.signatureHeader.trim() : null;
  if (f.scheme === 'hmac_sha256' && header !== e.signature_header)
    changes.signature_header = header;
  if (f.silenceOn) {
    const minutes = Number(f.silenceMinutes);
    if (f.silenceMinutes.trim() === '' || !Number.isFinite(minutes) || minutes <= 0) {
      errors.silence_minutes = 'Use a positive number of minutes.';
    } else if (minutes !== e.silence_minutes) changes.silence_minutes = minutes;
  } else if (e.silence_minutes !== null) changes.silence_minutes = null;
  const alertUrl = f.alertWebhookUrl.trim() === '' ? null : f.alertWebhookUrl.trim();
  if (alertUrl !== e.alert_webhook_url) changes.alert_webhook_url = alertUrl;
  return { changes, errors };
}

export function SettingsPage({ endpointId }: { endpointId: number }) {
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    api<Endpoint>('GET', `/app/api/endpoints/${endpointId}`)
      .then((e) => {
        setEndpoint(e);
        setForm(formOf(e));
      })
      .catch((e) => setLoadError(errorText(e)));
  }, [endpointId]);

  if (loadError) {
    return (
      <section className="page narrow">
        <h1>Endpoint settings</h1>
        <p className="error" role="alert">
          {loadError}
        </p>
      </section>
    );
  }
  if (!endpoint || !form) return <p role="status">Loading…</p>;

  // Errors about fields not on screen (or not fields at all) are listed above the buttons.
  const shown = new Set(['name', 'verify_scheme', 'alert_webhook_url']);
  if (form.forwardingOn) shown.add('forwarding');
  if (form.scheme) shown.add('signing_secret');
  if (form.scheme === 'hmac_sha256') shown.add('signature_header');
  if (form.silenceOn) shown.add('silence_minutes');
  const stray = Object.entries(errors).filter(([k]) => !shown.has(k));

  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm({ ...form, [key]: value });

  const patch = async (changes: Record<string, unknown>, done: string) => {
    setBusy(true);
    setStatus(null);
    try {
      const updated = await api<Endpoint>('PATCH', `/app/api/endpoints/${endpoint.id}`, changes);
      setEndpoint(updated);
      setForm(formOf(updated));
      setErrors({});
      setStatus({ ok: true, text: done });
    } catch (error) {
      if (error instanceof ApiError && error.field) {
        setErrors({ [error.field]: error.problem });
        setStatus({ ok: false, text: 'Nothing was saved: fix the field marked below.' });
        document.getElementById(`field-${error.field}`)?.focus();
      } else {
        setStatus({ ok: false, text: errorText(error) });
      }
    } finally {
      setBusy(false);
    }
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    const { changes, errors: local } = changesOf(endpoint, form);
    if (Object.keys(local).length > 0) {
      setErrors(local);
      setStatus({ ok: false, text: 'Nothing was saved: fix the field marked below.' });
      return;
    }
    if (Object.keys(changes).length === 0) {
      setStatus({ ok: true, text: 'No changes to save.' });
      return;
    }
    void patch(changes, 'Settings saved.');
  };

  const remove = async () => {
    setConfirmDelete(false);
    try {
      await api('DELETE', `/app/api/endpoints/${endpoint.id}`);
      navigate('/');
    } catch (error) {
      setStatus({ ok: false, text: errorText(error) });
    }
  };

  return (
    <section className="page narrow settings">
      <p className="crumbs">
        <Link to="/">Endpoints</Link> /{' '}
        <Link to={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link> /
      </p>
      <h1>Settings</h1>

      <div className="card pause-card">
        <div>
          <h2>{endpoint.is_active ? 'Active' : 'Paused'}</h2>
          <p className="muted">
            {endpoint.is_active
              ? 'Requests are captured, forwarded and watched for silence.'
              : 'Requests are still captured and answered 200, but forwarding waits and silence alerts are off.'}
          </p>
        </div>
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={() =>
            void patch(
              { is_active: !endpoint.is_active },
              endpoint.is_active ? 'Endpoint paused.' : 'Endpoint resumed.',
            )
          }
        >
          {endpoint.is_active ? 'Pause' : 'Resume'}
        </button>
      </div>

      <div className="url-bar">
        <span className="label">Capture URL</span>
        <code className="capture-url">{endpoint.url}</code>
        <CopyButton text={endpoint.url} label="Copy URL" />
      </div>

      <form onSubmit={save} noValidate>
        <fieldset>
          <legend>General</legend>
          <Field id="field-name" label="Name" error={errors.name}>
            {(props) => (
              <input
                {...props}
                value={form.name}
                maxLength={200}
                onChange={(e) => set('name', e.target.value)}
              />
            )}
          </Field>
        </fieldset>

        <fieldset>
          <legend>Forwarding</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={form.forwardingOn}
              onChange={(e) => set('forwardingOn', e.target.checked)}
            />
            Forward every request to my server
          </label>
          {form.forwardingOn ? (
            <Field
              id="field-forwarding"
              label="Forwarding URL"
              hint="The path and query after the capture token are appended. Failures are retried for days."
              error={errors.forwarding}
            >
              {(props) => (
                <input
                  {...props}
                  type="url"
                  placeholder="https://example.com/webhooks"
                  value={form.forwarding}
                  onChange={(e) => set('forwarding', e.target.value)}
                />
              )}
            </Field>
          ) : null}
          {endpoint.forwarding ? (
            <p className="hint">
              Now: <ForwardingHealth endpoint={endpoint} />
            </p>
          ) : null}
        </fieldset>

        <fieldset>
          <legend>Signature verification</legend>
          <Field
            id="field-verify_scheme"
            label="Scheme"
            hint={
              form.scheme
                ? SCHEME_HINTS[form.scheme]
                : 'Requests are captured without checking who sent them.'
            }
            error={errors.verify_scheme}
          >
            {(props) => (
              <select
                {...props}
                value={form.scheme}
                onChange={(e) => set('scheme', e.target.value as VerifyScheme | '')}
              >
                <option value="">Off</option>
                {(Object.keys(SCHEME_NAMES) as VerifyScheme[]).map((s) => (
                  <option key={s} value={s}>
                    {SCHEME_NAMES[s]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {form.scheme ? (
            <>
              <Field
                id="field-signing_secret"
                label="Signing secret"
                hint={
                  endpoint.has_signing_secret
                    ? 'A secret is set; it is never shown again. Type a new one to replace it (the old one keeps working for a grace period).'
                    : 'Without a secret every request is marked invalid (no_secret).'
                }
                error={errors.signing_secret}
              >
                {(props) => (
                  <input
                    {...props}
                    type="password"
                    autoComplete="off"
                    placeholder={endpoint.has_signing_secret ? '•••••••• (unchanged)' : 'whsec_…'}
                    value={form.secret}
                    onChange={(e) => set('secret', e.target.value)}
                  />
                )}
              </Field>
              {form.scheme === 'hmac_sha256' ? (
                <Field
                  id="field-signature_header"
                  label="Signature header"
                  hint="Leave empty for X-Signature."
                  error={errors.signature_header}
                >
                  {(props) => (
                    <input
                      {...props}
                      placeholder="X-Signature"
                      value={form.signatureHeader}
                      onChange={(e) => set('signatureHeader', e.target.value)}
                    />
                  )}
                </Field>
              ) : null}
            </>
          ) : null}
        </fieldset>

        <fieldset>
          <legend>Alerts</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={form.silenceOn}
              onChange={(e) => set('silenceOn', e.target.checked)}
            />
            Alert me when no request arrives for a while
          </label>
          {form.silenceOn ? (
            <Field
              id="field-silence_minutes"
              label="Silence threshold (minutes)"
              hint="One alert when the endpoint has been quiet this long, and a recovered notice when traffic resumes."
              error={errors.silence_minutes}
            >
              {(props) => (
                <input
                  {...props}
                  type="number"
                  inputMode="decimal"
                  min="0"
                  step="any"
                  value={form.silenceMinutes}
                  onChange={(e) => set('silenceMinutes', e.target.value)}
                />
              )}
            </Field>
          ) : null}
          <Field
            id="field-alert_webhook_url"
            label="Alert webhook URL (optional)"
            hint="Alerts are also POSTed here as JSON with a Slack-compatible text field."
            error={errors.alert_webhook_url}
          >
            {(props) => (
              <input
                {...props}
                type="url"
                placeholder="https://hooks.slack.com/services/…"
                value={form.alertWebhookUrl}
                onChange={(e) => set('alertWebhookUrl', e.target.value)}
              />
            )}
          </Field>
        </fieldset>

        {stray.length > 0 ? (
          <p className="error" role="alert">
            {stray.map(([k, v]) => `${k}: ${v}`).join('; ')}
          </p>
        ) : null}
        {status ? (
          <p className={status.ok ? 'success' : 'error'} role={status.ok ? 'status' : 'alert'}>
            {status.text}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="button primary" disabled={busy}>
            Save changes
          </button>
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => setForm(formOf(endpoint))}
          >
            Discard
          </button>
        </div>
      </form>

      <div className="card danger-zone">
        <div>
          <h2>Delete this endpoint</h2>
          <p className="muted">
            Its captured requests go with it and its URL starts answering 404.
          </p>
        </div>
        <button type="button" className="button danger" onClick={() => setConfirmDelete(true)}>
          Delete endpoint
        </button>
      </div>
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete “${endpoint.name}”?`}
        confirmLabel="Delete endpoint"
        danger
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() => void remove()}
      >
        <p>
          Its {endpoint.events_total.toLocaleString()} captured requests are deleted with it. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
