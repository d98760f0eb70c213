// The verification contract (DESIGN §4). `src/verify` is pure: no imports from the rest
// of the app, no clock, no I/O — everything it needs arrives as arguments.

export type Scheme = 'stripe' | 'github' | 'shopify' | 'hmac_sha256' | 'standard_webhooks';

export type InvalidReason =
  'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'mismatch' | 'no_secret';

/** Raw headers exactly as they arrived: ordered [name, value] pairs, duplicates kept. */
export type RawHeaders = ReadonlyArray<readonly [string, string]>;

export interface VerifyOptions {
  /** Header carrying the signature for `hmac_sha256`; default `X-Signature`. */
  signatureHeader?: string | null;
  /** Seconds a timestamp may lag (Stripe) or differ either way (Standard Webhooks). */
  toleranceSeconds: number;
}

export type VerifyResult = { label: 'valid' } | { label: 'invalid'; reason: InvalidReason };

/** With secret rotation, which of the endpoint's secrets matched. */
export type SecretKey = 'current' | 'previous';

export type RotatingVerifyResult =
  { label: 'valid'; key: SecretKey } | { label: 'invalid'; reason: InvalidReason };

/** One scheme's check, called only once the dispatcher knows a secret is configured. */
export type SchemeVerifier = (
  secret: string,
  options: VerifyOptions,
  rawHeaders: RawHeaders,
  rawBody: Buffer,
  nowSeconds: number,
) => VerifyResult;
