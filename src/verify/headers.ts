import type { InvalidReason, RawHeaders } from './types.js';

export type HeaderLookup =
  { found: 'missing' } | { found: 'one'; value: string } | { found: 'duplicate' };

const MISSING: HeaderLookup = { found: 'missing' };
const DUPLICATE: HeaderLookup = { found: 'duplicate' };

// ASCII-only folding: String#toLowerCase maps a few non-ASCII letters onto ASCII ones
// (U+212A KELVIN SIGN becomes "k"), which would let "webhoo\u212A-id" pose as "webhook-id".
function asciiLowerCode(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

/**
 * Whether two header names are equal under ASCII case folding. Compared code unit by code
 * unit rather than by lowering both: this runs for every header of every verified request,
 * and lowering would build two strings each time. Names are not secret, so it may stop early.
 */
function sameHeaderName(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    if (asciiLowerCode(a.charCodeAt(i)) !== asciiLowerCode(b.charCodeAt(i))) return false;
  }
  return true;
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

// RFC 9110 §5.5: leading and trailing spaces and tabs are not part of a field value.
// Node's parser strips them already; this keeps hand-built header lists honest too.
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start += 1;
  while (end > start && isOws(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** Finds a header by name, case-insensitively, and says whether it came once or more. */
export function findHeader(rawHeaders: RawHeaders, name: string): HeaderLookup {
  let seen: string | null = null;
  for (const [headerName, value] of rawHeaders) {
    if (!sameHeaderName(headerName, name)) continue;
    if (seen !== null) return DUPLICATE;
    seen = value;
  }
  return seen === null ? MISSING : { found: 'one', value: trimOws(seen) };
}

export type SingleHeader = { ok: true; value: string } | { ok: false; reason: InvalidReason };

const MISSING_HEADER: SingleHeader = { ok: false, reason: 'missing_header' };
const MALFORMED_HEADER: SingleHeader = { ok: false, reason: 'malformed_header' };

/**
 * The one value of a header that must appear exactly once. An empty value counts as
 * missing, as stripe-node and standardwebhooks both judge it; a repeated header is
 * malformed, because no scheme here spreads its signatures over several headers and we
 * will not guess which copy the sender meant.
 */
export function singleHeader(rawHeaders: RawHeaders, name: string): SingleHeader {
  const lookup = findHeader(rawHeaders, name);
  switch (lookup.found) {
    case 'missing':
      return MISSING_HEADER;
    case 'duplicate':
      return MALFORMED_HEADER;
    case 'one':
      return lookup.value === '' ? MISSING_HEADER : { ok: true, value: lookup.value };
  }
}
