import { useCallback, useEffect, useState } from 'react';
import { ApiError, SESSION_ENDED, api } from './api';
import { Layout } from './components/Layout';
import { AccountPage } from './pages/AccountPage';
import { AlertsPage } from './pages/AlertsPage';
import { AuthPage } from './pages/AuthPage';
import { EndpointsPage } from './pages/EndpointsPage';
import { InspectorPage } from './pages/InspectorPage';
import { SettingsPage } from './pages/SettingsPage';
import { type Route, matchRoute, navigate, useLocation } from './router';
import { SessionContext, type SessionValue } from './session';
import type { Me } from './types';

type Auth =
  { state: 'loading' } | { state: 'out'; notice: string | null } | { state: 'in'; me: Me };

function page(route: Route) {
  switch (route.name) {
    case 'endpoints':
      return <EndpointsPage />;
    case 'inspector':
      return (
        <InspectorPage
          key={route.endpointId}
          endpointId={route.endpointId}
          eventId={route.eventId}
        />
      );
    case 'settings':
      return <SettingsPage key={route.endpointId} endpointId={route.endpointId} />;
    case 'account':
      return <AccountPage />;
    case 'alerts':
      return <AlertsPage />;
    case 'login':
    case 'signup':
    case 'notFound':
      return (
        <section className="page narrow">
          <h1>Page not found</h1>
          <p>There is nothing at this address.</p>
        </section>
      );
  }
}

export function App() {
  const { path, search } = useLocation();
  const route = matchRoute(path);
  const [auth, setAuth] = useState<Auth>({ state: 'loading' });

  const refresh = useCallback(async () => {
    try {
      setAuth({ state: 'in', me: await api<Me>('GET', '/app/api/me') });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        setAuth({ state: 'out', notice: null });
      else throw error;
    }
  }, []);

  useEffect(() => {
    refresh().catch(() => setAuth({ state: 'out', notice: 'Hookwatch could not be reached.' }));
  }, [refresh]);

  // Any call that gets a 401 (session expired, logged out in another tab) lands here.
  useEffect(() => {
    const ended = () =>
      setAuth((current) =>
        current.state === 'in'
          ? { state: 'out', notice: 'Your session ended. Log in again to continue.' }
          : current,
      );
    window.addEventListener(SESSION_ENDED, ended);
    return () => window.removeEventListener(SESSION_ENDED, ended);
  }, []);

  const isAuthPage = route.name === 'login' || route.name === 'signup';
  useEffect(() => {
    if (auth.state === 'out' && !isAuthPage) {
      const next = path === '/' ? '' : `?next=${encodeURIComponent(path)}`;
      navigate(`/login${next}`, { replace: true });
    }
    if (auth.state === 'in' && isAuthPage)
      navigate(safeNext(search.get('next')), { replace: true });
  }, [auth.state, isAuthPage, path, search]);

  if (auth.state === 'loading') {
    return (
      <p className="loading-screen" role="status">
        Loading…
      </p>
    );
  }
  if (auth.state === 'out' || isAuthPage) {
    return (
      <AuthPage
        mode={route.name === 'signup' ? 'signup' : 'login'}
        notice={auth.state === 'out' ? auth.notice : null}
        onSignedIn={refresh}
      />
    );
  }
  const session: SessionValue = {
    me: auth.me,
    refresh,
    logout: async () => {
      await api('POST', '/app/api/logout').catch(() => undefined);
      // A deliberate logout starts over at the endpoints list next time, not where it was.
      navigate('/login');
      setAuth({ state: 'out', notice: 'You are logged out.' });
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <Layout route={route}>{page(route)}</Layout>
    </SessionContext.Provider>
  );
}

/** Only same-site paths: `?next=https://evil.example` must not become an open redirect. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}
