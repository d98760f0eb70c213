// Space, and tab through carriage return (tab, LF, VT, FF, CR): the blanks a pasted
// secret picks up. Tested by code rather than by a regular expression, once per request.
function isBlankCode(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/**
 * Whether a secret is configured at all. Blank means null, empty or only whitespace —
 * stripe-node's isBlankWebhookSecret rule, applied to every scheme: a whitespace secret is
 * a paste mistake, and verifying against it would pass anyone who guessed the mistake.
 */
export function hasSecret(secret: string | null): secret is string {
  if (secret === null) return false;
  for (let i = 0; i < secret.length; i += 1) {
    if (!isBlankCode(secret.charCodeAt(i))) return true;
  }
  return false;
}
