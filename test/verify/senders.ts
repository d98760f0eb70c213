// The senders' own libraries, used as oracles: requests are signed the way Stripe,
// GitHub, Shopify and Standard Webhooks senders sign them, and the same libraries' verify
// functions are asked for a second opinion. Nothing here imports src/verify.
import { createHmac } from 'node:crypto';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { vi } from 'vitest';
import type { RawHeaders, VerifyOptions } from '../../src/verify/index.js';

export const NOW = 1_700_000_000;
export const OPTIONS: VerifyOptions = { toleranceSeconds: 300 };

export const STRIPE_SECRET = 'whsec_1bT3Q2zXv9Lr0wUq8sYk5NmA4cHfPdE7';
export const GITHUB_SECRET = "It's a Secret to Everybody";
export const SHOPIFY_SECRET = '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';
export const HMAC_SECRET = 'generic-sender-secret';
// The example secret from the Standard Webhooks specification.
export const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** "{" 0xFF 0xFE "}": not UTF-8; a decoder would turn the middle into two U+FFFD. */
export const INVALID_UTF8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);

export function stripeHeader(payload: string, secret = STRIPE_SECRET, timestamp = NOW): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** stripe-node's own judgement, with its clock pinned through `receivedAt`. */
export function stripeAccepts(
  payload: string | Buffer,
  header: string,
  secret: string,
  nowSeconds = NOW,
  tolerance = OPTIONS.toleranceSeconds,
): boolean {
  try {
    return Stripe.webhooks.signature!.verifyHeader(
      payload,
      header,
      secret,
      tolerance,
      undefined,
      nowSeconds * 1000,
    );
  } catch {
    return false;
  }
}

export function githubHeader(payload: string, secret = GITHUB_SECRET): Promise<string> {
  return octokitSign(secret, payload);
}

export async function octokitAccepts(
  payload: string,
  signature: string,
  secret: string,
): Promise<boolean> {
  try {
    return await octokitVerify(secret, payload, signature);
  } catch {
    return false;
  }
}

/** Shopify's documented scheme: base64 of HMAC-SHA256(secret, raw body). */
export function shopifyHeader(body: Buffer | string, secret = SHOPIFY_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

export function hmacHex(body: Buffer | string, secret = HMAC_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function hmacBase64(body: Buffer | string, secret = HMAC_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

export function standardSignature(
  payload: string | Buffer,
  secret = SW_SECRET,
  id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  timestamp = NOW,
): string {
  return new Webhook(secret).sign(id, new Date(timestamp * 1000), payload);
}

export function standardHeaders(
  payload: string | Buffer,
  secret = SW_SECRET,
  id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  timestamp = NOW,
): Array<[string, string]> {
  return [
    ['webhook-id', id],
    ['webhook-timestamp', String(timestamp)],
    ['webhook-signature', standardSignature(payload, secret, id, timestamp)],
  ];
}

/**
 * standardwebhooks' own judgement. It reads Date.now(), so the clock is pinned for the
 * call; the library keeps the last of duplicate names, which the caller must avoid.
 */
export function standardAccepts(
  payload: string | Buffer,
  headers: RawHeaders,
  secret: string,
  nowSeconds = NOW,
): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(nowSeconds * 1000);
    new Webhook(secret).verify(payload, Object.fromEntries(headers), { jsonParse: false });
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}
