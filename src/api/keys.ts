import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'hw_live_';
const RANDOM_LENGTH = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** How much of the key the dashboard keeps showing after it is created. */
const SHOWN_LENGTH = API_KEY_PREFIX.length + 6;

/** The shape of a key we issue; anything else is refused before any look-up. */
export const API_KEY_PATTERN = /^hw_live_[0-9A-Za-z]{32}$/;

/** `length` base62 characters from crypto.randomBytes, without modulo bias. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it would make the first characters likelier.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Only the SHA-256 is stored; look-up by hash leaves no timing oracle on the secret. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key (190 random bits), its stored hash and the prefix shown afterwards. */
export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = API_KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return { key, hash: hashApiKey(key), prefix: key.slice(0, SHOWN_LENGTH) };
}
