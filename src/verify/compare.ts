import { timingSafeEqual } from 'node:crypto';

// Text is compared as its UTF-8 bytes. Encoding both sides into fresh Buffers cost more
// per request than the comparison itself, so text up to MAX_SCRATCH_UNITS code units is
// written into two buffers that live as long as the module instead. Verification is
// synchronous, so no two comparisons ever use them at once.
const SCRATCH_BYTES = 384;
// A UTF-16 code unit never takes more than 3 bytes of UTF-8, so text this short fits whole.
const MAX_SCRATCH_UNITS = SCRATCH_BYTES / 3;
const expectedScratch = Buffer.alloc(SCRATCH_BYTES);
const candidateScratch = Buffer.alloc(SCRATCH_BYTES);
// timingSafeEqual compares whole views, so each byte length gets one pair of views onto
// the scratch buffers, made the first time that length is compared.
const scratchViews: Array<readonly [Buffer, Buffer] | undefined> = [];

function scratchViewsOf(length: number): readonly [Buffer, Buffer] {
  let views = scratchViews[length];
  if (views === undefined) {
    views = [expectedScratch.subarray(0, length), candidateScratch.subarray(0, length)];
    scratchViews[length] = views;
  }
  return views;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

function textEqual(expected: string, candidate: string): boolean {
  if (expected.length > MAX_SCRATCH_UNITS || candidate.length > MAX_SCRATCH_UNITS) {
    return bytesEqual(Buffer.from(expected, 'utf8'), Buffer.from(candidate, 'utf8'));
  }
  const length = expectedScratch.write(expected, 'utf8');
  if (candidateScratch.write(candidate, 'utf8') !== length) return false;
  const [a, b] = scratchViewsOf(length);
  return timingSafeEqual(a, b);
}

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
  if (typeof expected === 'string' && typeof candidate === 'string') {
    return textEqual(expected, candidate);
  }
  return bytesEqual(bytes(expected), bytes(candidate));
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
