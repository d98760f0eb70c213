/**
 * A Unix timestamp header value: decimal digits only. stripe-node and standardwebhooks
 * use parseInt, which also takes "17e9", " 12" or "123abc" (and stripe-node even signs
 * "NaN." for `t=abc`); a genuine sender never writes those, so they are malformed here.
 * The number is returned as parseInt reads it, because both libraries sign `${number}`,
 * not the header text ("t=0123" is signed as "123.").
 */
export function parseUnixSeconds(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value)) return null;
  return Number.parseInt(value, 10);
}
