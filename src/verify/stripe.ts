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

function isKey(value: string, start: number, end: number, key: string): boolean {
  return end - start === key.length && value.startsWith(key, start);
}

// Mirrors stripe-node's parseHeader: items split on ",", each on "=", keys compared
// exactly (no trimming, so " v1=…" is not a v1), the last `t` wins, every `v1` counts,
// `v0` and unknown keys are ignored, and "v1=a=b" carries the signature "a". Scanned in
// place with indexOf, because split built an array per item on every request.
function parseHeader(value: string): StripeHeader {
  const parsed: StripeHeader = { timestamp: undefined, signatures: [] };
  // The next "=" at or after the scan position, or -1 once none is left. It is kept
  // across items so every stretch of the header is searched once: searching afresh per
  // item would read a long header of "="-less items to its end once per item.
  let equals = value.indexOf('=');
  let start = 0;
  while (start <= value.length) {
    let end = value.indexOf(',', start);
    if (end === -1) end = value.length;
    if (equals !== -1 && equals < start) equals = value.indexOf('=', start);
    const keyEnd = equals !== -1 && equals < end ? equals : end;
    const isT = isKey(value, start, keyEnd, 't');
    if (isT || isKey(value, start, keyEnd, 'v1')) {
      let itemValue: string | undefined;
      if (keyEnd < end) {
        equals = value.indexOf('=', keyEnd + 1);
        itemValue = value.slice(keyEnd + 1, equals !== -1 && equals < end ? equals : end);
      }
      if (isT) parsed.timestamp = itemValue;
      else parsed.signatures.push(itemValue ?? '');
    }
    start = end + 1;
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
  const expected = hmacSha256(secret, `${timestamp}.`, rawBody, 'hex');
  // An empty or bare v1 makes stripe-node's comparison throw, rejecting the request even
  // when another v1 matches; so it does here.
  if (parsed.signatures.includes('') || !anyConstantTimeEqual(expected, parsed.signatures)) {
    return invalid('mismatch');
  }

  // Only lateness is judged: Stripe's own library lets future timestamps through. Unlike
  // stripe-node, a tolerance of 0 does not switch the check off (config forbids 0, and no
  // setting should quietly accept replays); a NaN clock fails the comparison, closed.
  const age = Math.floor(nowSeconds) - timestamp;
  if (!(age <= options.toleranceSeconds)) return invalid('timestamp_out_of_tolerance');
  return VALID;
};
