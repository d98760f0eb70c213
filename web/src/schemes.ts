import type { VerifyScheme } from './types';

export const SCHEME_NAMES: Record<VerifyScheme, string> = {
  stripe: 'Stripe',
  github: 'GitHub',
  shopify: 'Shopify',
  hmac_sha256: 'HMAC-SHA256',
  standard_webhooks: 'Standard Webhooks',
};

/** What each scheme reads, for the settings form's hint. */
export const SCHEME_HINTS: Record<VerifyScheme, string> = {
  stripe: 'Checks Stripe-Signature with your endpoint secret (whsec_…).',
  github: 'Checks X-Hub-Signature-256 with your webhook secret.',
  shopify: 'Checks X-Shopify-Hmac-Sha256 with your app’s client secret.',
  hmac_sha256:
    'HMAC-SHA256 of the body, hex or base64, in the header you name (X-Signature by default).',
  standard_webhooks:
    'Checks webhook-id, webhook-timestamp and webhook-signature with a whsec_… secret.',
};
