import { describe, expect, it } from 'vitest';
import { type RawHeaders, verifyWithRotation } from '../../src/verify/index.js';
import { NOW, OPTIONS, hmacHex, standardHeaders, stripeHeader } from './senders.js';

const BODY = '{"id":"evt_rotation"}';
const CURRENT = 'whsec_current_secret';
const PREVIOUS = 'whsec_previous_secret';

function stripeSignedWith(secret: string, timestamp = NOW): RawHeaders {
  return [['Stripe-Signature', stripeHeader(BODY, secret, timestamp)]];
}

function rotate(current: string | null, previous: string | null, headers: RawHeaders) {
  return verifyWithRotation(
    'stripe',
    { current, previous },
    OPTIONS,
    headers,
    Buffer.from(BODY),
    NOW,
  );
}

describe('verifyWithRotation', () => {
  it('names the current key when the current secret matches', () => {
    expect(rotate(CURRENT, PREVIOUS, stripeSignedWith(CURRENT))).toEqual({
      label: 'valid',
      key: 'current',
    });
  });

  it('names the previous key when only the previous secret matches', () => {
    expect(rotate(CURRENT, PREVIOUS, stripeSignedWith(PREVIOUS))).toEqual({
      label: 'valid',
      key: 'previous',
    });
  });

  it('reports a mismatch when neither secret matches', () => {
    expect(rotate(CURRENT, PREVIOUS, stripeSignedWith('whsec_stranger'))).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('reports a mismatch without a previous secret (grace period over)', () => {
    expect(rotate(CURRENT, null, stripeSignedWith(PREVIOUS))).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('still tries the previous secret when the current one was cleared', () => {
    expect(rotate(null, PREVIOUS, stripeSignedWith(PREVIOUS))).toEqual({
      label: 'valid',
      key: 'previous',
    });
    expect(rotate('', PREVIOUS, stripeSignedWith('whsec_stranger'))).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('reports no_secret when neither secret is set', () => {
    expect(rotate(null, null, stripeSignedWith(CURRENT))).toEqual({
      label: 'invalid',
      reason: 'no_secret',
    });
    expect(rotate('', ' ', stripeSignedWith(CURRENT))).toEqual({
      label: 'invalid',
      reason: 'no_secret',
    });
  });

  it('keeps the current key’s mismatch when the previous secret is unusable', () => {
    const result = verifyWithRotation(
      'standard_webhooks',
      { current: 'whsec_Y3VycmVudA==', previous: 'whsec_not base64' },
      OPTIONS,
      standardHeaders(BODY, 'whsec_c3RyYW5nZXI='),
      Buffer.from(BODY),
      NOW,
    );
    expect(result).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('reports a stale timestamp behind a previous-key signature, not a mismatch', () => {
    expect(rotate(CURRENT, PREVIOUS, stripeSignedWith(PREVIOUS, NOW - 301))).toEqual({
      label: 'invalid',
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('reports header problems once, whichever key is tried', () => {
    expect(rotate(CURRENT, PREVIOUS, [])).toEqual({ label: 'invalid', reason: 'missing_header' });
    expect(rotate(CURRENT, PREVIOUS, [['Stripe-Signature', 'junk']])).toEqual({
      label: 'invalid',
      reason: 'malformed_header',
    });
  });

  it('works the same for the other schemes', () => {
    const result = verifyWithRotation(
      'hmac_sha256',
      { current: 'new', previous: 'old' },
      OPTIONS,
      [['X-Signature', hmacHex(BODY, 'old')]],
      Buffer.from(BODY),
      NOW,
    );
    expect(result).toEqual({ label: 'valid', key: 'previous' });
  });
});
