export type HeaderPairs = Array<[string, string]>;

// Hop-by-hop headers (RFC 9110 §7.6.1) describe the sender's connection to us, not the
// request; Host and Content-Length are set for the target by the HTTP client.
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'content-length',
]);

export const EVENT_ID_HEADER = 'X-Hookwatch-Event-Id';
export const ENDPOINT_HEADER = 'X-Hookwatch-Endpoint';
const OURS = new Set([EVENT_ID_HEADER.toLowerCase(), ENDPOINT_HEADER.toLowerCase()]);

/** Every header name the `Connection` headers list (they are hop-by-hop too). */
function namedByConnection(headers: HeaderPairs): Set<string> {
  const names = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== 'connection') continue;
    for (const token of value.split(',')) {
      const trimmed = token.trim().toLowerCase();
      if (trimmed !== '') names.add(trimmed);
    }
  }
  return names;
}

/**
 * The headers of a forwarded request (DESIGN §5): the captured ones in their raw order,
 * case and duplicates, minus hop-by-hop ones, plus the event and endpoint ids. A sender
 * cannot supply its own `X-Hookwatch-*` ids: receivers de-duplicate on them.
 */
export function outboundHeaders(
  captured: HeaderPairs,
  ids: { eventId: number; endpointId: number },
): HeaderPairs {
  const connectionNamed = namedByConnection(captured);
  const out: HeaderPairs = [];
  for (const [name, value] of captured) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || connectionNamed.has(lower) || OURS.has(lower)) continue;
    out.push([name, value]);
  }
  out.push([EVENT_ID_HEADER, String(ids.eventId)]);
  out.push([ENDPOINT_HEADER, String(ids.endpointId)]);
  return out;
}
