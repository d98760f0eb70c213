import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type RawHeaders, verify } from '../../src/verify/index.js';
import {
  BOM,
  INVALID_UTF8,
  NOW,
  OPTIONS,
  SW_SECRET,
  standardAccepts,
  standardHeaders,
  standardSignature,
} from './senders.js';

const PAYLOAD = '{"type":"invoice.paid","data":{"amount":1999,"memo":"Grüße 👋"}}';
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';

function check(headers: RawHeaders, body: Buffer | string = PAYLOAD, secret = SW_SECRET) {
  return verify('standard_webhooks', secret, OPTIONS, headers, Buffer.from(body), NOW);
}

function withSignature(value: string): RawHeaders {
  return [
    ['webhook-id', ID],
    ['webhook-timestamp', String(NOW)],
    ['webhook-signature', value],
  ];
}

const v1 = (payload: Buffer | string = PAYLOAD) => standardSignature(payload).slice('v1,'.length);

describe('standard_webhooks', () => {
  it('accepts a request signed by the standardwebhooks library', () => {
    const headers = standardHeaders(PAYLOAD);
    expect(check(headers)).toEqual({ label: 'valid' });
    expect(standardAccepts(PAYLOAD, headers, SW_SECRET)).toBe(true);
  });

  it('matches the header names in any case', () => {
    const headers = standardHeaders(PAYLOAD).map(
      ([name, value], i) =>
        [i === 0 ? name.toUpperCase() : `Webhook-${name.slice(8)}`, value] as const,
    );
    expect(headers.map(([name]) => name)).toEqual([
      'WEBHOOK-ID',
      'Webhook-timestamp',
      'Webhook-signature',
    ]);
    expect(check(headers)).toEqual({ label: 'valid' });
  });

  it('decodes a secret without the whsec_ prefix as base64, as the library does', () => {
    const bare = SW_SECRET.slice('whsec_'.length);
    expect(check(standardHeaders(PAYLOAD, bare), PAYLOAD, SW_SECRET)).toEqual({ label: 'valid' });
    expect(check(standardHeaders(PAYLOAD, SW_SECRET), PAYLOAD, bare)).toEqual({ label: 'valid' });
  });

  it('rejects a tampered body as a mismatch', () => {
    const headers = standardHeaders(PAYLOAD);
    const tampered = PAYLOAD.replace('1999', '1');
    expect(check(headers, tampered)).toEqual({ label: 'invalid', reason: 'mismatch' });
    expect(standardAccepts(tampered, headers, SW_SECRET)).toBe(false);
  });

  it('rejects a tampered message id as a mismatch', () => {
    const headers = standardHeaders(PAYLOAD).map(([n, v]) =>
      n === 'webhook-id' ? ([n, 'msg_other'] as const) : ([n, v] as const),
    );
    expect(check(headers)).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('rejects a request signed with another secret as a mismatch', () => {
    const other = `whsec_${Buffer.from('another key of some length').toString('base64')}`;
    expect(check(standardHeaders(PAYLOAD, other))).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('rejects timestamps 301 s old or ahead and accepts 300 s either way', () => {
    for (const offset of [-301, 301]) {
      const headers = standardHeaders(PAYLOAD, SW_SECRET, ID, NOW + offset);
      expect(check(headers)).toEqual({ label: 'invalid', reason: 'timestamp_out_of_tolerance' });
      expect(standardAccepts(PAYLOAD, headers, SW_SECRET)).toBe(false);
    }
    for (const offset of [-300, 300]) {
      const headers = standardHeaders(PAYLOAD, SW_SECRET, ID, NOW + offset);
      expect(check(headers)).toEqual({ label: 'valid' });
      expect(standardAccepts(PAYLOAD, headers, SW_SECRET)).toBe(true);
    }
  });

  it('judges the timestamp before the signature, as the library does', () => {
    const headers = standardHeaders(PAYLOAD, 'whsec_c29tZW9uZSBlbHNl', ID, NOW - 3600);
    expect(check(headers)).toEqual({ label: 'invalid', reason: 'timestamp_out_of_tolerance' });
  });

  it('accepts any v1 entry of the list and ignores other versions', () => {
    const value = `v1,${'A'.repeat(43)}= v1a,${'B'.repeat(86)}== v1,${v1()}`;
    expect(check(withSignature(value))).toEqual({ label: 'valid' });
    expect(standardAccepts(PAYLOAD, withSignature(value), SW_SECRET)).toBe(true);
  });

  it.each([
    ['a header without any v1 entry', () => `v1a,${v1()}`],
    ['the right signature labelled as another version', () => `v2,${v1()}`],
    ['garbage', () => 'garbage'],
  ])('reports %s as malformed_header', (_name, value) => {
    expect(check(withSignature(value()))).toEqual({ label: 'invalid', reason: 'malformed_header' });
    expect(standardAccepts(PAYLOAD, withSignature(value()), SW_SECRET)).toBe(false);
  });

  it.each([
    ['a bare v1,', () => 'v1,'],
    ['a bare v1', () => 'v1'],
    [
      'hex sent where base64 is expected',
      () => `v1,${Buffer.from(v1(), 'base64').toString('hex')}`,
    ],
    ['base64 without its padding', () => `v1,${v1().replace(/=+$/, '')}`],
    ['a truncated signature', () => `v1,${v1().slice(0, 20)}`],
    ['an over-long signature', () => `v1,${v1()}AAAA`],
  ])('reports %s as a mismatch', (_name, value) => {
    expect(check(withSignature(value()))).toEqual({ label: 'invalid', reason: 'mismatch' });
    expect(standardAccepts(PAYLOAD, withSignature(value()), SW_SECRET)).toBe(false);
  });

  it.each([
    ['decimal', `${NOW}.5`],
    ['negative', `-${NOW}`],
    ['letters', 'yesterday'],
    ['an ISO date', '2023-11-14T22:13:20Z'],
  ])('reports a %s timestamp as malformed_header', (_name, timestamp) => {
    const headers: RawHeaders = [
      ['webhook-id', ID],
      ['webhook-timestamp', timestamp],
      ['webhook-signature', standardSignature(PAYLOAD)],
    ];
    expect(check(headers)).toEqual({ label: 'invalid', reason: 'malformed_header' });
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'reports a missing or empty %s as missing_header',
    (name) => {
      const headers = standardHeaders(PAYLOAD);
      const without = headers.filter(([n]) => n !== name);
      expect(check(without)).toEqual({ label: 'invalid', reason: 'missing_header' });
      const empty = headers.map(([n, v]) => [n, n === name ? '' : v] as const);
      expect(check(empty)).toEqual({ label: 'invalid', reason: 'missing_header' });
      expect(standardAccepts(PAYLOAD, without, SW_SECRET)).toBe(false);
    },
  );

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'treats %s sent twice as malformed',
    (name) => {
      const headers = standardHeaders(PAYLOAD);
      const twice = [
        ...headers,
        ...headers.filter(([n]) => n === name).map(([n, v]) => [n.toUpperCase(), v] as const),
      ];
      expect(check(twice)).toEqual({ label: 'invalid', reason: 'malformed_header' });
    },
  );

  it.each([
    ['not base64', 'whsec_not base64!'],
    ['empty after the prefix', 'whsec_'],
    ['base64 of the wrong length', 'whsec_abcde'],
    ['base64url', 'whsec_-_-_'],
  ])('reports a secret that is %s as no_secret instead of throwing', (_name, secret) => {
    expect(check(standardHeaders(PAYLOAD), PAYLOAD, secret)).toEqual({
      label: 'invalid',
      reason: 'no_secret',
    });
  });

  it('hashes invalid UTF-8 bytes as they arrived, not as the library decodes them', () => {
    // standardwebhooks turns a Buffer into text first, signing U+FFFD for the bad bytes.
    const decoded = standardHeaders(INVALID_UTF8);
    expect(standardAccepts(INVALID_UTF8, decoded, SW_SECRET)).toBe(true);
    expect(check(decoded, INVALID_UTF8)).toEqual({ label: 'invalid', reason: 'mismatch' });

    const raw = createRawSignature(INVALID_UTF8);
    expect(check(withSignature(raw), INVALID_UTF8)).toEqual({ label: 'valid' });
  });

  it('keeps a UTF-8 BOM at the start of the body and hashes it', () => {
    const body = Buffer.concat([BOM, Buffer.from(PAYLOAD)]);
    expect(check(standardHeaders(body), body)).toEqual({ label: 'valid' });
    expect(check(standardHeaders(PAYLOAD), body)).toEqual({ label: 'invalid', reason: 'mismatch' });
  });
});

function createRawSignature(body: Buffer): string {
  const key = Buffer.from(SW_SECRET.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${ID}.${NOW}.`).update(body).digest('base64');
  return `v1,${mac}`;
}
