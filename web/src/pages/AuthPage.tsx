import { type FormEvent, useState } from 'react';
import { ApiError, api } from '../api';
import { Field } from '../components/Field';
import { Link } from '../router';

const MIN_PASSWORD = 10;

/** Sign up and log in: one form, two modes, errors next to the field they are about. */
export function AuthPage({
  mode,
  notice,
  onSignedIn,
}: {
  mode: 'login' | 'signup';
  notice: string | null;
  onSignedIn: () => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({});
  const signup = mode === 'signup';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (signup && password.length < MIN_PASSWORD) {
      setErrors({ password: `Use at least ${MIN_PASSWORD} characters.` });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      await api('POST', signup ? '/app/api/signup' : '/app/api/login', { email, password });
      await onSignedIn();
    } catch (error) {
      if (error instanceof ApiError && (error.field === 'email' || error.field === 'password')) {
        setErrors({ [error.field]: capitalise(error.problem) });
      } else {
        setErrors({
          form: error instanceof ApiError ? error.detail : 'Something went wrong; try again.',
        });
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <p className="brand big">
          <span className="logo" aria-hidden="true" />
          Hookwatch
        </p>
        <h1>{signup ? 'Create your account' : 'Log in'}</h1>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        <form onSubmit={submit} noValidate>
          <Field id="email" label="Email" error={errors.email}>
            {(props) => (
              <input
                {...props}
                type="email"
                autoComplete="email"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            )}
          </Field>
          <Field
            id="password"
            label="Password"
            hint={signup ? `At least ${MIN_PASSWORD} characters.` : undefined}
            error={errors.password}
          >
            {(props) => (
              <input
                {...props}
                type="password"
                autoComplete={signup ? 'new-password' : 'current-password'}
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          {errors.form ? (
            <p className="error" role="alert">
              {errors.form}
            </p>
          ) : null}
          <button type="submit" className="button primary wide" disabled={busy}>
            {busy ? 'One moment…' : signup ? 'Sign up' : 'Log in'}
          </button>
        </form>
        <p className="switch">
          {signup ? 'Already have an account? ' : 'New to Hookwatch? '}
          <Link to={signup ? '/login' : '/signup'}>{signup ? 'Log in' : 'Create an account'}</Link>
        </p>
      </div>
    </main>
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
}
