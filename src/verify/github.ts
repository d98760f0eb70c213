import { constantTimeEqual } from './compare.js';
import { singleHeader } from './headers.js';
import { hmacSha256 } from './hmac.js';
import { VALID, invalid } from './result.js';
import type { SchemeVerifier } from './types.js';

const HEADER = 'X-Hub-Signature-256';
const PREFIX = 'sha256=';

/**
 * `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 over the body. @octokit/webhooks-methods
 * compares the whole header text with `sha256=` + lowercase hex, so we do too: "SHA256=…"
 * lacks the prefix (malformed) and uppercase, truncated or over-long hex is a mismatch.
 */
export const verifyGithub: SchemeVerifier = (secret, _options, rawHeaders, rawBody) => {
  const header = singleHeader(rawHeaders, HEADER);
  if (!header.ok) return invalid(header.reason);
  if (!header.value.startsWith(PREFIX)) return invalid('malformed_header');

  // The prefix is already known to match; comparing the rest spares joining it on.
  const expected = hmacSha256(secret, '', rawBody, 'hex');
  const sent = header.value.slice(PREFIX.length);
  return constantTimeEqual(expected, sent) ? VALID : invalid('mismatch');
};
