import { createHmac } from 'node:crypto';

/**
 * HMAC-SHA256 over the concatenation of `parts`. A string key is used as its UTF-8
 * bytes, as stripe-node, @octokit/webhooks-methods and Shopify's libraries all do.
 */
export function hmacSha256(key: string | Uint8Array, ...parts: Array<string | Uint8Array>): Buffer {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
