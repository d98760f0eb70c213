import { verifyGithub } from './github.js';
import { verifyHmacSha256 } from './hmacSha256.js';
import { invalid } from './result.js';
import { hasSecret } from './secret.js';
import { verifyShopify } from './shopify.js';
import { verifyStandardWebhooks } from './standardWebhooks.js';
import { verifyStripe } from './stripe.js';
import type { RawHeaders, Scheme, SchemeVerifier, VerifyOptions, VerifyResult } from './types.js';

function verifierFor(scheme: Scheme): SchemeVerifier {
  switch (scheme) {
    case 'stripe':
      return verifyStripe;
    case 'github':
      return verifyGithub;
    case 'shopify':
      return verifyShopify;
    case 'hmac_sha256':
      return verifyHmacSha256;
    case 'standard_webhooks':
      return verifyStandardWebhooks;
  }
}

/**
 * Checks one captured request against an endpoint's scheme and secret (DESIGN §4). Pure
 * and total: headers and body are attacker-controlled, so every input yields a result
 * and nothing throws. Without a secret nothing can be verified, whatever the headers say,
 * so no_secret comes before any header judgement.
 */
export function verify(
  scheme: Scheme,
  secret: string | null,
  options: VerifyOptions,
  rawHeaders: RawHeaders,
  rawBody: Buffer,
  nowSeconds: number,
): VerifyResult {
  if (!hasSecret(secret)) return invalid('no_secret');
  return verifierFor(scheme)(secret, options, rawHeaders, rawBody, nowSeconds);
}
