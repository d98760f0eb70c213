/**
 * Whether a secret is configured at all. Blank means null, empty or only whitespace —
 * stripe-node's isBlankWebhookSecret rule, applied to every scheme: a whitespace secret is
 * a paste mistake, and verifying against it would pass anyone who guessed the mistake.
 */
export function hasSecret(secret: string | null): secret is string {
  return secret !== null && !/^[ \t\r\n\f\v]*$/.test(secret);
}
