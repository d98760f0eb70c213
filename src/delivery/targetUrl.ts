/**
 * The URL an event is forwarded to (DESIGN §5): the captured sub-path appended to the
 * forwarding URL's path with one `/` between them, and the captured query appended to
 * its query with `&`. `https://x.test/hook?a=1` + `/deep?b=2` → `https://x.test/hook/deep?a=1&b=2`.
 */
export function buildTargetUrl(
  forwardingUrl: string,
  subPath: string,
  queryString: string,
): string {
  const url = new URL(forwardingUrl);
  if (subPath !== '') {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${subPath.replace(/^\/+/, '')}`;
  }
  if (queryString !== '') {
    const existing = url.search.replace(/^\?/, '');
    // Assigning `search` would re-encode; the captured query goes out as it came in.
    const base = url.toString().replace(/[?#].*$/, '');
    return `${base}?${existing === '' ? queryString : `${existing}&${queryString}`}${url.hash}`;
  }
  return url.toString();
}
