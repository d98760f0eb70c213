import type { AttemptRow, DeliveryPayload } from '../store/attempts/index.js';
import { type HeaderPairs, outboundHeaders } from './headers.js';
import type { OutboundRequest } from './send.js';
import { buildTargetUrl } from './targetUrl.js';

/**
 * Where an attempt goes: a replay to the URL it was given; an automatic attempt to the
 * endpoint's forwarding URL as it is now (a changed URL is used by the next attempt),
 * with the captured sub-path and query appended. Null when there is none any more.
 */
export function attemptTarget(
  row: Pick<AttemptRow, 'trigger' | 'target_url'>,
  forwardingUrl: string | null,
  payload: Pick<DeliveryPayload, 'path' | 'query_string'>,
): string | null {
  switch (row.trigger) {
    case 'replay':
      return row.target_url;
    case 'auto':
      return forwardingUrl === null
        ? null
        : buildTargetUrl(forwardingUrl, payload.path, payload.query_string);
  }
}

/** The request for an event (DESIGN §5): its method, exact body bytes and header rules. */
export function prepareRequest(
  row: Pick<AttemptRow, 'event_id' | 'endpoint_id'>,
  payload: DeliveryPayload,
  target: string,
): OutboundRequest {
  return {
    method: payload.method,
    url: target,
    headers: outboundHeaders(JSON.parse(payload.headers) as HeaderPairs, {
      eventId: row.event_id,
      endpointId: row.endpoint_id,
    }),
    body: payload.body,
  };
}
