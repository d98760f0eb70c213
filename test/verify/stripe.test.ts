import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RawHeaders, verify } from '../../src/verify/index.js';
import {
  BOM,
  INVALID_UTF8,
  NOW,
  OPTIONS,
  STRIPE_SECRET,
  stripeAccepts,
  stripeHeader,
} from './senders.js';

const PAYLOAD = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.succeeded' });

function check(headers: RawHeaders, body: Buffer | string = PAYLOAD, now = NOW) {
  return verify('stripe', STRIPE_SECRET, OPTIONS, headers, Buffer.from(body), now);
}

function signed(header: string): RawHeaders {
  return [['Stripe-Signature', header]];
}

function v1For(payload: Buffer | string, secret = STRIPE_SECRET, timestamp = NOW): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
}

describe('stripe', () => {
  it('accepts a request signed by stripe-node', () => {
    const header = stripeHeader(PAYLOAD);
    expect(check(signed(header))).toEqual({ label: 'valid' });
    expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(true);
  });

  it('accepts non-ASCII JSON, hashed as its UTF-8 bytes', () => {
    const payload = JSON.stringify({ name: 'Zoë 🧾 日本' });
    expect(check(signed(stripeHeader(payload)), payload)).toEqual({ label: 'valid' });
  });

  it('matches the header name in any case', () => {
    const header = stripeHeader(PAYLOAD);
    for (const name of ['stripe-signature', 'STRIPE-SIGNATURE', 'sTrIpE-SiGnAtUrE']) {
      expect(check([[name, header]])).toEqual({ label: 'valid' });
    }
  });

  it('keys the HMAC with the whole whsec_ string', () => {
    const withoutPrefix = STRIPE_SECRET.slice('whsec_'.length);
    const header = stripeHeader(PAYLOAD, withoutPrefix);
    expect(check(signed(header))).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('rejects a tampered body as a mismatch', () => {
    const header = stripeHeader(PAYLOAD);
    const tampered = PAYLOAD.replace('succeeded', 'failed');
    expect(check(signed(header), tampered)).toEqual({ label: 'invalid', reason: 'mismatch' });
    expect(stripeAccepts(tampered, header, STRIPE_SECRET)).toBe(false);
  });

  it('rejects a request signed with another secret as a mismatch', () => {
    const header = stripeHeader(PAYLOAD, 'whsec_someone_else');
    expect(check(signed(header))).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('rejects a timestamp 301 s old and accepts one exactly 300 s old', () => {
    const stale = stripeHeader(PAYLOAD, STRIPE_SECRET, NOW - 301);
    expect(check(signed(stale))).toEqual({
      label: 'invalid',
      reason: 'timestamp_out_of_tolerance',
    });
    expect(stripeAccepts(PAYLOAD, stale, STRIPE_SECRET)).toBe(false);

    const edge = stripeHeader(PAYLOAD, STRIPE_SECRET, NOW - 300);
    expect(check(signed(edge))).toEqual({ label: 'valid' });
    expect(stripeAccepts(PAYLOAD, edge, STRIPE_SECRET)).toBe(true);
  });

  it('accepts future timestamps, as stripe-node does', () => {
    for (const ahead of [301, 86_400]) {
      const header = stripeHeader(PAYLOAD, STRIPE_SECRET, NOW + ahead);
      expect(check(signed(header))).toEqual({ label: 'valid' });
      expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(true);
    }
  });

  it('takes the tolerance from the options', () => {
    const header = stripeHeader(PAYLOAD, STRIPE_SECRET, NOW - 61);
    const result = verify(
      'stripe',
      STRIPE_SECRET,
      { toleranceSeconds: 60 },
      signed(header),
      Buffer.from(PAYLOAD),
      NOW,
    );
    expect(result).toEqual({ label: 'invalid', reason: 'timestamp_out_of_tolerance' });
  });

  it('judges the signature before the age, so a stale forgery is a mismatch', () => {
    const header = stripeHeader(PAYLOAD, 'whsec_someone_else', NOW - 3600);
    expect(check(signed(header))).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('accepts any v1 entry, as during a secret roll where the second one matches', () => {
    const header = `t=${NOW},v1=${v1For(PAYLOAD, 'whsec_old_secret')},v1=${v1For(PAYLOAD)}`;
    expect(check(signed(header))).toEqual({ label: 'valid' });
    expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(true);
  });

  it('ignores v0 entries', () => {
    const withV0 = `t=${NOW},v1=${v1For(PAYLOAD)},v0=${'0'.repeat(64)}`;
    expect(check(signed(withV0))).toEqual({ label: 'valid' });
    const onlyV0 = `t=${NOW},v0=${v1For(PAYLOAD)}`;
    expect(check(signed(onlyV0))).toEqual({ label: 'invalid', reason: 'malformed_header' });
  });

  it('reports a missing or empty header as missing_header', () => {
    expect(check([])).toEqual({ label: 'invalid', reason: 'missing_header' });
    expect(check([['X-Other', 'x']])).toEqual({ label: 'invalid', reason: 'missing_header' });
    expect(check(signed(''))).toEqual({ label: 'invalid', reason: 'missing_header' });
  });

  it.each([
    ['garbage', 'garbage'],
    ['no timestamp', `v1=${v1For(PAYLOAD)}`],
    ['no v1 entry', `t=${NOW}`],
    ['a space after the comma, which stripe-node does not trim', `t=${NOW}, v1=${v1For(PAYLOAD)}`],
    ['a negative timestamp', `t=-${NOW},v1=${v1For(PAYLOAD)}`],
    ['a bare t', `t,v1=${v1For(PAYLOAD)}`],
  ])('reports %s as malformed_header', (_name, header) => {
    expect(check(signed(header))).toEqual({ label: 'invalid', reason: 'malformed_header' });
    expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(false);
  });

  it.each([
    ['a decimal', `t=${NOW}.5,v1=${v1For(PAYLOAD)}`],
    ['trailing letters', `t=${NOW}abc,v1=${v1For(PAYLOAD)}`],
    [
      'letters, which stripe-node signs as "NaN."',
      `t=abc,v1=${v1For(PAYLOAD, STRIPE_SECRET, NaN)}`,
    ],
  ])('rejects a t of %s although stripe-node parseInt()s it', (_name, header) => {
    expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(true);
    expect(check(signed(header))).toEqual({ label: 'invalid', reason: 'malformed_header' });
  });

  it('signs the timestamp as stripe-node reads it, leading zeros dropped', () => {
    const header = `t=0${NOW},v1=${v1For(PAYLOAD)}`;
    expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(true);
    expect(check(signed(header))).toEqual({ label: 'valid' });
  });

  it.each([
    ['an empty v1', () => `t=${NOW},v1=`],
    ['a bare v1', () => `t=${NOW},v1`],
    ['a truncated v1', () => `t=${NOW},v1=${v1For(PAYLOAD).slice(0, -1)}`],
    ['an over-long v1', () => `t=${NOW},v1=${v1For(PAYLOAD)}0`],
    ['uppercase hex', () => `t=${NOW},v1=${v1For(PAYLOAD).toUpperCase()}`],
    [
      'base64 instead of hex',
      () => `t=${NOW},v1=${Buffer.from(v1For(PAYLOAD), 'hex').toString('base64')}`,
    ],
  ])('reports %s as a mismatch, as stripe-node rejects it', (_name, header) => {
    expect(check(signed(header()))).toEqual({ label: 'invalid', reason: 'mismatch' });
    expect(stripeAccepts(PAYLOAD, header(), STRIPE_SECRET)).toBe(false);
  });

  it.each([
    ['an empty v1', 'v1='],
    ['a bare v1', 'v1'],
  ])('rejects %s even beside a matching v1, as stripe-node does', (_name, item) => {
    const header = `t=${NOW},v1=${v1For(PAYLOAD)},${item}`;
    expect(stripeAccepts(PAYLOAD, header, STRIPE_SECRET)).toBe(false);
    expect(check(signed(header))).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('treats a signature header sent twice as malformed, even if both copies are valid', () => {
    const header = stripeHeader(PAYLOAD);
    expect(check([...signed(header), ...signed(header)])).toEqual({
      label: 'invalid',
      reason: 'malformed_header',
    });
    expect(
      check([
        ['stripe-signature', header],
        ['Stripe-Signature', header],
      ]),
    ).toEqual({
      label: 'invalid',
      reason: 'malformed_header',
    });
  });

  it('hashes invalid UTF-8 bytes as they arrived, not as a decoder would read them', () => {
    expect(check(signed(`t=${NOW},v1=${v1For(INVALID_UTF8)}`), INVALID_UTF8)).toEqual({
      label: 'valid',
    });
    // stripe-node decodes a Buffer body to text first, so it signs U+FFFD in its place.
    const decoded = stripeHeader(INVALID_UTF8.toString('utf8'));
    expect(stripeAccepts(INVALID_UTF8, decoded, STRIPE_SECRET)).toBe(true);
    expect(check(signed(decoded), INVALID_UTF8)).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('keeps a UTF-8 BOM at the start of the body and hashes it', () => {
    const body = Buffer.concat([BOM, Buffer.from(PAYLOAD)]);
    const withBom = stripeHeader(`\uFEFF${PAYLOAD}`);
    expect(check(signed(withBom), body)).toEqual({ label: 'valid' });
    const withoutBom = stripeHeader(PAYLOAD);
    expect(check(signed(withoutBom), body)).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('verifies an empty body', () => {
    const header = `t=${NOW},v1=${v1For('')}`;
    expect(check(signed(header), '')).toEqual({ label: 'valid' });
  });

  it('reads any list of items as stripe-node does', () => {
    const v1 = v1For(PAYLOAD);
    const item = fc.constantFrom(
      `t=${NOW}`,
      `t=${NOW - 1000}`,
      't=',
      't',
      `v1=${v1}`,
      `v1=${v1}=extra`,
      `v1=${v1.toUpperCase()}`,
      `v1=${v1For(PAYLOAD, 'whsec_someone_else')}`,
      // stripe-node throws on an empty or bare v1 even beside a matching one.
      'v1=',
      'v1',
      `v0=${v1}`,
      ` v1=${v1}`,
      `=${v1}`,
      'x=1=2',
      'junk',
      '',
    );
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 8 }), (items) => {
        const header = items.join(',');
        // HTTP parsers strip a leading space from the value before either library sees it.
        fc.pre(!header.startsWith(' '));
        const ours = check(signed(header));
        expect(ours.label === 'valid').toBe(stripeAccepts(PAYLOAD, header, STRIPE_SECRET));
      }),
      { numRuns: 2000 },
    );
  });
});
