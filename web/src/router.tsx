import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

export type Route =
  | { name: 'login' }
  | { name: 'signup' }
  | { name: 'endpoints' }
  | { name: 'inspector'; endpointId: number; eventId: number | null }
  | { name: 'settings'; endpointId: number }
  | { name: 'account' }
  | { name: 'alerts' }
  | { name: 'notFound' };

const NAVIGATED = 'hookwatch:navigated';

/** Pages by URL; the server answers every one of these with index.html. */
export function matchRoute(path: string): Route {
  const clean = path.replace(/\/+$/, '') || '/';
  if (clean === '/') return { name: 'endpoints' };
  if (clean === '/login') return { name: 'login' };
  if (clean === '/signup') return { name: 'signup' };
  if (clean === '/account') return { name: 'account' };
  if (clean === '/alerts') return { name: 'alerts' };
  let m = /^\/endpoints\/(\d+)(?:\/events\/(\d+))?$/.exec(clean);
  if (m)
    return { name: 'inspector', endpointId: Number(m[1]), eventId: m[2] ? Number(m[2]) : null };
  m = /^\/endpoints\/(\d+)\/settings$/.exec(clean);
  if (m) return { name: 'settings', endpointId: Number(m[1]) };
  return { name: 'notFound' };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

const currentUrl = () => window.location.pathname + window.location.search;

/** The current path and query; re-renders on navigation. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const url = useSyncExternalStore(subscribe, currentUrl);
  const [path, query = ''] = url.split('?');
  return { path: path ?? '/', search: new URLSearchParams(query) };
}

/** A real link (middle-click, copy address) that navigates in-page on a plain click. */
export function Link({
  to,
  onClick,
  ...props
}: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    ) {
      return;
    }
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...props} />;
}
