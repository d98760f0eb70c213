import { verify } from './dispatch.js';
import type {
  RawHeaders,
  RotatingVerifyResult,
  Scheme,
  VerifyOptions,
  VerifyResult,
} from './types.js';

export interface RotatingSecrets {
  current: string | null;
  /** Pass only while the previous secret is inside its grace period; null otherwise. */
  previous: string | null;
}

// Only these say "this key did not fit"; any other reason (a missing or malformed
// header, a stale Standard Webhooks timestamp) is the same whichever key we try.
function keyDidNotFit(result: VerifyResult): boolean {
  return (
    result.label === 'invalid' && (result.reason === 'mismatch' || result.reason === 'no_secret')
  );
}

/**
 * Verifies with the current secret, then — only if that key did not fit — with the
 * previous one, and says which matched. A null current secret with a previous one still
 * set (the user cleared the secret mid-rotation) still checks the previous one: it is the
 * key the sender may be using, and the grace period is the caller's decision. When both
 * fail, the answer is the current key's, except that a reason only the previous key could
 * reach (its signature matched but Stripe's timestamp is stale) says more, and a missing
 * current secret tells nothing about the request.
 */
export function verifyWithRotation(
  scheme: Scheme,
  secrets: RotatingSecrets,
  options: VerifyOptions,
  rawHeaders: RawHeaders,
  rawBody: Buffer,
  nowSeconds: number,
): RotatingVerifyResult {
  const first = verify(scheme, secrets.current, options, rawHeaders, rawBody, nowSeconds);
  if (first.label === 'valid') return { label: 'valid', key: 'current' };
  if (!keyDidNotFit(first) || secrets.previous === null) return first;

  const second = verify(scheme, secrets.previous, options, rawHeaders, rawBody, nowSeconds);
  if (second.label === 'valid') return { label: 'valid', key: 'previous' };
  if (first.reason === 'no_secret' || !keyDidNotFit(second)) return second;
  return first;
}
