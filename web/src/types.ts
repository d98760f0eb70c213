// The dashboard JSON (DESIGN §7 and §8), as the server's presenters shape it.

export type Plan = 'free' | 'startup' | 'business';
export type VerifyScheme = 'stripe' | 'github' | 'shopify' | 'hmac_sha256' | 'standard_webhooks';
export type SignatureLabel = 'valid' | 'invalid';
export type ForwardStatus = 'not_forwarded' | 'pending' | 'retrying' | 'delivered' | 'cancelled';
export type AttemptState = 'scheduled' | 'in_flight' | 'succeeded' | 'failed' | 'cancelled';

export interface Account {
  id: number;
  email: string;
  plan: Plan;
}

export interface Me extends Account {
  api_key: { prefix: string; created_at: string; last_used_at?: string | null } | null;
  email_alerts?: boolean;
}

export interface Endpoint {
  id: number;
  name: string;
  token: string;
  url: string;
  is_active: boolean;
  forwarding: string | null;
  verify_scheme: VerifyScheme | null;
  events_total: number;
  created_at: string;
  silence_minutes: number | null;
  last_event_at: string | null;
  signature_header: string | null;
  has_signing_secret: boolean;
  alert_webhook_url: string | null;
  forwarding_failing_since?: string | null;
  last_delivery_at?: string | null;
  last_delivery_ok?: boolean | null;
}

export interface EventSummary {
  id: number;
  endpoint: number;
  method: string;
  path: string;
  received_at: string;
  source_ip: string;
  size: number;
  content_type: string | null;
  signature: SignatureLabel | null;
  signature_reason: string | null;
  forward_status: ForwardStatus | null;
  attempts: number;
}

export interface Attempt {
  id: number;
  attempt: number;
  trigger: 'auto' | 'replay';
  target_url: string | null;
  state: AttemptState;
  scheduled_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_body_encoding?: 'utf8' | 'base64' | null;
}

export interface EventDetail extends EventSummary {
  headers: Record<string, string>;
  raw_headers: Array<[string, string]>;
  body: string;
  body_encoding: 'utf8' | 'base64';
  truncated: boolean;
  query_string: string;
  signature_key: 'current' | 'previous' | null;
  deliveries: Attempt[];
}

export interface Page<T> {
  results: T[];
  next: string | null;
}

export type AlertKind = 'silence' | 'silence_recovered' | 'failing' | 'failing_recovered';
export type AlertChannelStatus = 'pending' | 'sent' | 'failed' | 'off';

export interface AlertChannel {
  status: AlertChannelStatus;
  tries: number;
  error: string | null;
  sent_at: string | null;
  to?: string | null;
  url?: string | null;
}

/** One notice and what each channel did with it (DESIGN §6). */
export interface AlertNotice {
  id: number;
  kind: AlertKind;
  /** Null once the endpoint was deleted; the name is kept. */
  endpoint: number | null;
  endpoint_name: string;
  created_at: string;
  since: string | null;
  recovered_at: string | null;
  threshold_minutes: number | null;
  channels: { email: AlertChannel; webhook: AlertChannel };
  next_try_at: string | null;
}
