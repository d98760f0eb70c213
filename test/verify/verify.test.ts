import { describe, expect, it } from 'vitest';
import { type Scheme, verify } from '../../src/verify/index.js';
import { NOW, OPTIONS, SW_SECRET, stripeHeader, standardHeaders } from './senders.js';

const SCHEMES: readonly Scheme[] = [
  'stripe',
  'github',
  'shopify',
  'hmac_sha256',
  'standard_webhooks',
];

describe('verify', () => {
  for (const scheme of SCHEMES) {
    it(`reports no_secret for ${scheme} with a null, empty or whitespace secret`, () => {
      for (const secret of [null, '', ' ', '\t\r\n']) {
        expect(verify(scheme, secret, OPTIONS, [], Buffer.from('{}'), NOW)).toEqual({
          label: 'invalid',
          reason: 'no_secret',
        });
      }
    });
  }

  it('reports no_secret even for a request that carries a valid-looking signature', () => {
    const headers = [['Stripe-Signature', stripeHeader('{}', 'whsec_x')]] as const;
    expect(verify('stripe', null, OPTIONS, headers, Buffer.from('{}'), NOW)).toEqual({
      label: 'invalid',
      reason: 'no_secret',
    });
    expect(
      verify('standard_webhooks', '', OPTIONS, standardHeaders('{}'), Buffer.from('{}'), NOW),
    ).toEqual({ label: 'invalid', reason: 'no_secret' });
  });

  it('dispatches each scheme to its own headers', () => {
    const headers = standardHeaders('{}');
    const body = Buffer.from('{}');
    expect(verify('standard_webhooks', SW_SECRET, OPTIONS, headers, body, NOW)).toEqual({
      label: 'valid',
    });
    expect(verify('stripe', SW_SECRET, OPTIONS, headers, body, NOW)).toEqual({
      label: 'invalid',
      reason: 'missing_header',
    });
  });

  it('fails a timestamp check closed when the clock reads NaN', () => {
    const stripe = [['Stripe-Signature', stripeHeader('{}', 'whsec_x')]] as const;
    expect(verify('stripe', 'whsec_x', OPTIONS, stripe, Buffer.from('{}'), NaN)).toEqual({
      label: 'invalid',
      reason: 'timestamp_out_of_tolerance',
    });
    expect(
      verify(
        'standard_webhooks',
        SW_SECRET,
        OPTIONS,
        standardHeaders('{}'),
        Buffer.from('{}'),
        NaN,
      ),
    ).toEqual({ label: 'invalid', reason: 'timestamp_out_of_tolerance' });
  });
});
