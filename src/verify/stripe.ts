import { anyConstantTimeEqual } from './compare.js';
import { singleHeader } from './headers.js';
import { hmacSha256 } from './hmac.js';
import { VALID, invalid } from './result.js';
import { parseUnixSeconds } from './timestamp.js';
import type { SchemeVerifier } from './types.js';

const HEADER = 'Stripe-Signature';

interface StripeHeader {
  timestamp: string | undefined;
  signatures: string[];
}

// Mirrors stripe-node's parseHeader: items split on ",", each on "=", keys compared
// exactly (no trimming, so " v1=…" is not a v1), the last `t` wins, every `v1` counts,
// `v0` and unknown keys are ignored, and "v1=a=b" carries the signature "a".
function parseHeader(value: string): StripeHeader {
  const parsed: StripeHeader = { timestamp: undefined, signatures: [] };
  for (const item of value.split(',')) {
    const [key, itemValue] = item.split('=');
    if (key === 't') parsed.timestamp = itemValue;
    if (key === 'v1') parsed.signatures.push(itemValue ?? '');
  }
  return parsed;
}

/**
 * `Stripe-Signature: t=<unix>,v1=<hex>[,v1=…]`, HMAC-SHA256 keyed by the whole `whsec_…`
 * string over `${t}.${body}`. Several v1 entries appear while Stripe rolls a secret;
 * any one may match. The order of judgements is stripe-node's: header shape, then the
 * signature, then the age — so a stale request with a wrong signature is a mismatch.
 */
export const verifyStripe: SchemeVerifier = (secret, options, rawHeaders, rawBody, nowSeconds) => {
  const header = singleHeader(rawHeaders, HEADER);
  if (!header.ok) return invalid(header.reason);

  const parsed = parseHeader(header.value);
  const timestamp = parseUnixSeconds(parsed.timestamp);
  if (timestamp === null || parsed.signatures.length === 0) return invalid('malformed_header');

  // stripe-node compares the lowercase hex text verbatim, so uppercase hex does not match.
  const expected = hmacSha256(secret, `${timestamp}.`, rawBody).toString('hex');
  if (!anyConstantTimeEqual(expected, parsed.signatures)) return invalid('mismatch');

  // Only lateness is judged: Stripe's own library lets future timestamps through. Unlike
  // stripe-node, a tolerance of 0 does not switch the check off (config forbids 0, and no
  // setting should quietly accept replays); a NaN clock fails the comparison, closed.
  const age = Math.floor(nowSeconds) - timestamp;
  if (!(age <= options.toleranceSeconds)) return invalid('timestamp_out_of_tolerance');
  return VALID;
};
