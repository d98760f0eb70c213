import type { InvalidReason, RawHeaders } from './types.js';

export type HeaderLookup =
  { found: 'missing' } | { found: 'one'; value: string } | { found: 'duplicate' };

// ASCII-only folding: String#toLowerCase maps a few non-ASCII letters onto ASCII ones
// (U+212A KELVIN SIGN becomes "k"), which would let "webhoo\u212A-id" pose as "webhook-id".
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

// RFC 9110 §5.5: leading and trailing spaces and tabs are not part of a field value.
// Node's parser strips them already; this keeps hand-built header lists honest too.
function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Finds a header by name, case-insensitively, and says whether it came once or more. */
export function findHeader(rawHeaders: RawHeaders, name: string): HeaderLookup {
  const wanted = asciiLower(name);
  let seen: string | null = null;
  let count = 0;
  for (const [headerName, value] of rawHeaders) {
    // ASCII folding keeps the length: most names are ruled out without folding them.
    if (headerName.length !== wanted.length || asciiLower(headerName) !== wanted) continue;
    count += 1;
    seen = value;
  }
  if (count === 0 || seen === null) return { found: 'missing' };
  if (count > 1) return { found: 'duplicate' };
  return { found: 'one', value: trimOws(seen) };
}

export type SingleHeader = { ok: true; value: string } | { ok: false; reason: InvalidReason };

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
      return { ok: false, reason: 'missing_header' };
    case 'duplicate':
      return { ok: false, reason: 'malformed_header' };
    case 'one':
      return lookup.value === ''
        ? { ok: false, reason: 'missing_header' }
        : { ok: true, value: lookup.value };
  }
}
