import { type KeyObject, createHmac, createSecretKey } from 'node:crypto';

// Building the HMAC key from a string costs more than a quarter of an HMAC over a 1 KiB
// body; endpoints sign with a handful of secrets, so their key objects are kept.
const MAX_KEYS = 1000;
const keys = new Map<string, KeyObject>();

function keyFor(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * HMAC-SHA256 over the concatenation of `parts`. A string key is used as its UTF-8
 * bytes, as stripe-node, @octokit/webhooks-methods and Shopify's libraries all do.
 */
export function hmacSha256(key: string | Uint8Array, ...parts: Array<string | Uint8Array>): Buffer {
  const hmac = createHmac('sha256', typeof key === 'string' ? keyFor(key) : key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
