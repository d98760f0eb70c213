import { constantTimeEqual } from './compare.js';
import { sha256DigestAsHex } from './encoding.js';
import { singleHeader } from './headers.js';
import { hmacSha256 } from './hmac.js';
import { VALID, invalid } from './result.js';
import type { SchemeVerifier } from './types.js';

/** Default header for the generic scheme; an endpoint's `signature_header` overrides it. */
export const DEFAULT_SIGNATURE_HEADER = 'X-Signature';

// Any case: generic senders write "sha256=", "SHA256=" or nothing at all.
const PREFIX = /^sha256=/i;

/**
 * Generic HMAC-SHA256 over the body, for senders with no scheme of their own. There is
 * no vendor library to mirror, so we read what such senders actually send: hex or
 * base64, with or without `sha256=`. A value that is not a 32-byte digest in either
 * encoding (SHA-1 hex, a truncated or over-long digest, stray characters) is
 * malformed_header — the sender speaks a format we do not read, which is a different
 * fix from a wrong secret; a well-formed digest that differs is a mismatch.
 */
export const verifyHmacSha256: SchemeVerifier = (secret, options, rawHeaders, rawBody) => {
  // A blank configured name would match no header and hide the mistake as missing_header.
  const name = options.signatureHeader?.trim() || DEFAULT_SIGNATURE_HEADER;
  const header = singleHeader(rawHeaders, name);
  if (!header.ok) return invalid(header.reason);

  const sent = sha256DigestAsHex(header.value.replace(PREFIX, ''));
  if (sent === null) return invalid('malformed_header');
  const expected = hmacSha256(secret, '', rawBody, 'hex');
  return constantTimeEqual(expected, sent) ? VALID : invalid('mismatch');
};
