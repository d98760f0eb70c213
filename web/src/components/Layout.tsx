import { type ReactNode, useEffect, useRef } from 'react';
import { Link, type Route } from '../router';
import { useSession } from '../session';

const NAV: Array<{ to: string; label: string; active: (r: Route) => boolean }> = [
  {
    to: '/',
    label: 'Endpoints',
    active: (r) => r.name === 'endpoints' || r.name === 'inspector' || r.name === 'settings',
  },
  { to: '/alerts', label: 'Alerts', active: (r) => r.name === 'alerts' },
  { to: '/account', label: 'Account', active: (r) => r.name === 'account' },
];

export function Layout({ route, children }: { route: Route; children: ReactNode }) {
  const { me, logout } = useSession();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // After an in-page navigation, focus moves to the new page's heading, as a page load would.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = main.current?.querySelector<HTMLElement>('h1');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [route.name]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Hookwatch home">
          <span className="logo" aria-hidden="true" />
          Hookwatch
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={item.active(route) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span className="email" title={me.email}>
            {me.email}
          </span>
          <button type="button" className="button small" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" ref={main}>
        {children}
      </main>
    </>
  );
}
