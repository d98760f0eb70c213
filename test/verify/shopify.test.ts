import { describe, expect, it } from 'vitest';
import { type RawHeaders, verify } from '../../src/verify/index.js';
import { BOM, INVALID_UTF8, NOW, OPTIONS, SHOPIFY_SECRET, shopifyHeader } from './senders.js';

const PAYLOAD = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', note: 'Crème' });

function check(headers: RawHeaders, body: Buffer | string = PAYLOAD) {
  return verify('shopify', SHOPIFY_SECRET, OPTIONS, headers, Buffer.from(body), NOW);
}

function signed(value: string): RawHeaders {
  return [['X-Shopify-Hmac-Sha256', value]];
}

const digest = (body: Buffer | string = PAYLOAD) =>
  Buffer.from(shopifyHeader(body, SHOPIFY_SECRET), 'base64');

describe('shopify', () => {
  it("accepts Shopify's documented base64 HMAC of the raw body", () => {
    expect(check(signed(shopifyHeader(PAYLOAD)))).toEqual({ label: 'valid' });
  });

  it('matches the header name in any case', () => {
    for (const name of ['x-shopify-hmac-sha256', 'X-SHOPIFY-HMAC-SHA256']) {
      expect(check([[name, shopifyHeader(PAYLOAD)]])).toEqual({ label: 'valid' });
    }
  });

  it('rejects a tampered body as a mismatch', () => {
    const value = shopifyHeader(PAYLOAD);
    expect(check(signed(value), PAYLOAD.replace('jon', 'eve'))).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('rejects a request signed with another secret as a mismatch', () => {
    expect(check(signed(shopifyHeader(PAYLOAD, 'shpss_other')))).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('reports a missing or empty header as missing_header', () => {
    expect(check([])).toEqual({ label: 'invalid', reason: 'missing_header' });
    expect(check(signed(''))).toEqual({ label: 'invalid', reason: 'missing_header' });
  });

  it.each([
    ['hex sent where base64 is expected', () => digest().toString('hex')],
    ['base64 without its padding', () => digest().toString('base64').replace(/=+$/, '')],
    ['a truncated digest', () => digest().subarray(0, 31).toString('base64')],
    ['an over-long digest', () => Buffer.concat([digest(), Buffer.from([0])]).toString('base64')],
    ['garbage', () => 'not a signature!'],
  ])('reports %s as a mismatch: the header is only a digest', (_name, value) => {
    expect(check(signed(value()))).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('treats the signature header sent twice as malformed', () => {
    const value = shopifyHeader(PAYLOAD);
    expect(check([...signed(value), ['x-shopify-hmac-sha256', value]])).toEqual({
      label: 'invalid',
      reason: 'malformed_header',
    });
  });

  it('hashes invalid UTF-8 bytes as they arrived', () => {
    expect(check(signed(shopifyHeader(INVALID_UTF8)), INVALID_UTF8)).toEqual({ label: 'valid' });
    expect(check(signed(shopifyHeader(INVALID_UTF8.toString('utf8'))), INVALID_UTF8)).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('keeps a UTF-8 BOM at the start of the body and hashes it', () => {
    const body = Buffer.concat([BOM, Buffer.from(PAYLOAD)]);
    expect(check(signed(shopifyHeader(body)), body)).toEqual({ label: 'valid' });
    expect(check(signed(shopifyHeader(PAYLOAD)), body)).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });
});
