import { constantTimeEqual } from './compare.js';
import { singleHeader } from './headers.js';
import { hmacSha256 } from './hmac.js';
import { VALID, invalid } from './result.js';
import type { SchemeVerifier } from './types.js';

const HEADER = 'X-Shopify-Hmac-Sha256';

/**
 * `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 over the body. The header is nothing but
 * the digest, so there is no shape to be malformed: like Shopify's own library we compare
 * it as text with the padded standard base64 of our digest, and anything else — hex,
 * base64url, a truncated value — is a mismatch.
 */
export const verifyShopify: SchemeVerifier = (secret, _options, rawHeaders, rawBody) => {
  const header = singleHeader(rawHeaders, HEADER);
  if (!header.ok) return invalid(header.reason);

  const expected = hmacSha256(secret, '', rawBody, 'base64');
  return constantTimeEqual(expected, header.value) ? VALID : invalid('mismatch');
};
