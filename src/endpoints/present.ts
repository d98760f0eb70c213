import { isoMillis } from '../clock.js';
import type { Endpoint } from '../store/endpoints.js';

/** The Endpoint object of DESIGN §7, shared by the REST API and the dashboard's JSON. */
export function presentEndpoint(row: Endpoint, baseUrl: string) {
  return {
    id: row.id,
    name: row.name,
    token: row.token,
    url: `${baseUrl}/i/${row.token}`,
    is_active: row.is_active === 1,
    forwarding: row.forwarding_url,
    verify_scheme: row.verify_scheme,
    events_total: row.events_total,
    created_at: isoMillis(row.created_at),
    silence_minutes: row.silence_minutes,
    last_event_at: isoMillis(row.last_event_at),
    signature_header: row.signature_header,
    // The secret itself is write-only: never returned by any API once set.
    has_signing_secret: row.signing_secret !== null,
    alert_webhook_url: row.alert_webhook_url,
    // Forwarding health for the dashboard (beyond §7, additive).
    forwarding_failing_since: isoMillis(row.failing_since),
    last_delivery_at: isoMillis(row.last_delivery_at),
    last_delivery_ok: row.last_delivery_ok === null ? null : row.last_delivery_ok === 1,
  };
}

export type EndpointJson = ReturnType<typeof presentEndpoint>;
