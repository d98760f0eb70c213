import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: Uint8Array | string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Constant-time equality for values of any length. timingSafeEqual throws on a length
 * difference, and returning early on one would leak the expected length, so both sides
 * are hashed to 32 bytes first: equal digests mean equal inputs, and the comparison time
 * depends on neither input's content. Strings are compared as their UTF-8 bytes.
 */
export function constantTimeEqual(a: Uint8Array | string, b: Uint8Array | string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** True when any candidate equals the expected value; every candidate is always compared. */
export function anyConstantTimeEqual(
  expected: Uint8Array | string,
  candidates: readonly string[],
): boolean {
  let found = false;
  for (const candidate of candidates) {
    // `||` would skip the remaining comparisons once one matched.
    found = constantTimeEqual(expected, candidate) || found;
  }
  return found;
}
