// Row types as they are stored. Times are integer microseconds since the Unix epoch;
// flags are 0/1 integers so both dialects share one shape.
import type { Generated } from 'kysely';

export type Plan = 'free' | 'startup' | 'business';
export const PLANS: readonly Plan[] = ['free', 'startup', 'business'];

export type VerifyScheme = 'stripe' | 'github' | 'shopify' | 'hmac_sha256' | 'standard_webhooks';
export const VERIFY_SCHEMES: readonly VerifyScheme[] = [
  'stripe',
  'github',
  'shopify',
  'hmac_sha256',
  'standard_webhooks',
];

export type SignatureLabel = 'valid' | 'invalid';
export type SignatureReason =
  'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'mismatch' | 'no_secret';
export type SignatureKey = 'current' | 'previous';

export type ForwardStatus = 'not_forwarded' | 'pending' | 'retrying' | 'delivered' | 'cancelled';

export type AttemptState = 'scheduled' | 'in_flight' | 'succeeded' | 'failed' | 'cancelled';
export type AttemptTrigger = 'auto' | 'replay';

/**
 * Silence alert state machine, advanced only by guarded updates:
 * ok → alerted (deadline passed, notice sent) → recovering (capture saw traffic)
 * → ok (recovered notice sent).
 */
export type SilenceState = 'ok' | 'alerted' | 'recovering';

/** Forwarding-failing alert state: ok → alerted → recovering (a success) → ok. */
export type FailingState = 'ok' | 'alerted' | 'recovering';

export interface DbUser {
  id: Generated<number>;
  email: string;
  password_hash: string;
  plan: Plan;
  created_at: number;
}

export interface DbSession {
  id_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
}

export interface DbApiKey {
  id: Generated<number>;
  user_id: number;
  prefix: string;
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface DbEndpoint {
  id: Generated<number>;
  user_id: number;
  name: string;
  token: string;
  is_active: number;
  forwarding_url: string | null;
  verify_scheme: VerifyScheme | null;
  signing_secret: string | null;
  previous_signing_secret: string | null;
  previous_secret_expires_at: number | null;
  signature_header: string | null;
  silence_minutes: number | null;
  alert_webhook_url: string | null;
  events_total: Generated<number>;
  last_event_at: number | null;
  created_at: number;
  /** When the silence clock last restarted (threshold set or changed, endpoint resumed). */
  silence_anchor_at: number | null;
  /** max(last event, anchor) + silence_minutes; null when silence alerts are off. */
  silence_deadline: number | null;
  silence_state: Generated<SilenceState>;
  /** Since when automatic deliveries have failed without a success; null when healthy. */
  failing_since: number | null;
  failing_state: Generated<FailingState>;
  last_delivery_at: number | null;
  last_delivery_ok: number | null;
}

export interface DbEvent {
  id: Generated<number>;
  endpoint_id: number;
  user_id: number;
  method: string;
  path: string;
  query_string: string;
  /** JSON text: the raw ordered list of [name, value] pairs. */
  headers: string;
  body: Buffer;
  size: number;
  content_type: string | null;
  source_ip: string;
  received_at: number;
  truncated: number;
  signature: SignatureLabel | null;
  signature_reason: SignatureReason | null;
  signature_key: SignatureKey | null;
  forward_status: ForwardStatus | null;
  /** Attempts started, automatic and replay (a scheduled one is not counted). */
  attempts_started: Generated<number>;
}

export interface DbAttempt {
  id: Generated<number>;
  event_id: number;
  endpoint_id: number;
  attempt: number;
  /** How many automatic attempts precede this one; picks the schedule offset. */
  auto_seq: number | null;
  trigger: AttemptTrigger;
  target_url: string | null;
  state: AttemptState;
  scheduled_at: number;
  started_at: number | null;
  finished_at: number | null;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  /** JSON text: [[name, value], …] as the receiver sent them. */
  response_headers: string | null;
  response_body: Buffer | null;
  lease_expires_at: number | null;
  claimed_by: string | null;
}

/** Each notice is its own alert row (DESIGN §6). */
export type AlertKind = 'silence' | 'silence_recovered' | 'failing' | 'failing_recovered';

/** Per-channel outcome of an alert: `off` when the channel is not configured. */
export type AlertChannelStatus = 'pending' | 'sent' | 'failed' | 'off';

export interface DbAlert {
  id: Generated<number>;
  user_id: number;
  /** Null once the endpoint is deleted; the name below keeps the history readable. */
  endpoint_id: number | null;
  endpoint_name: string;
  kind: AlertKind;
  created_at: number;
  /** When the condition began: the last traffic before a silence, the first failed delivery. */
  since: number | null;
  /** Recovery notices: the first request after the silence, the first successful delivery. */
  recovered_at: number | null;
  threshold_minutes: number;
  email_to: string | null;
  email_status: AlertChannelStatus;
  email_tries: Generated<number>;
  email_error: string | null;
  email_sent_at: number | null;
  webhook_url: string | null;
  webhook_status: AlertChannelStatus;
  webhook_tries: Generated<number>;
  webhook_error: string | null;
  webhook_sent_at: number | null;
  /** The outbox: when a pending channel is next tried (a lease while sending); null when done. */
  next_try_at: number | null;
}

export interface Database {
  alerts: DbAlert;
  users: DbUser;
  sessions: DbSession;
  api_keys: DbApiKey;
  endpoints: DbEndpoint;
  events: DbEvent;
  attempts: DbAttempt;
}
