import { type KeyObject, createHmac, createSecretKey } from 'node:crypto';
import { cachedBySecret } from './keyCache.js';

// Building the HMAC key from a string costs more than a quarter of an HMAC over a 1 KiB
// body, so each secret's key object is built once.
const keyFor = cachedBySecret((secret) => createSecretKey(Buffer.from(secret, 'utf8')));

type HmacKey = string | KeyObject;

/**
 * HMAC-SHA256 over `prefix` (as UTF-8) followed by `body`, as text in `encoding`. A string
 * key is used as its UTF-8 bytes, as stripe-node, @octokit/webhooks-methods and Shopify's
 * libraries all do. Every scheme compares text, and asking for the digest as text costs
 * less than a Buffer: a Buffer made in C++ is a fresh allocation with its own backing
 * store, a short string is not.
 */
export function hmacSha256(
  key: HmacKey,
  prefix: string,
  body: Uint8Array,
  encoding: 'hex' | 'base64',
): string {
  const hmac = createHmac('sha256', typeof key === 'string' ? keyFor(key) : key);
  // Every update crosses into OpenSSL; most schemes sign the body alone.
  if (prefix !== '') hmac.update(prefix, 'utf8');
  return hmac.update(body).digest(encoding);
}
