import { timingSafeEqual } from 'node:crypto';

function bytes(value: Uint8Array | string): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/**
 * Constant-time equality that never throws on a length difference. Only the expected
 * side is secret, and its length is public (a SHA-256 digest in a fixed encoding), so a
 * length mismatch may answer at once: it tells the sender nothing about the secret but
 * what its own input's length already does. Equal lengths compare in time independent
 * of the content. Strings are compared as their UTF-8 bytes.
 */
export function constantTimeEqual(
  expected: Uint8Array | string,
  candidate: Uint8Array | string,
): boolean {
  const a = bytes(expected);
  const b = bytes(candidate);
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** True when any candidate equals the expected value; every candidate is always compared. */
export function anyConstantTimeEqual(
  expected: Uint8Array | string,
  candidates: readonly string[],
): boolean {
  const a = bytes(expected);
  let found = false;
  for (const candidate of candidates) {
    // `||` would skip the remaining comparisons once one matched.
    found = constantTimeEqual(a, candidate) || found;
  }
  return found;
}
