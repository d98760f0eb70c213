import { describe, expect, it } from 'vitest';
import { type RawHeaders, type VerifyOptions, verify } from '../../src/verify/index.js';
import { BOM, HMAC_SECRET, INVALID_UTF8, NOW, OPTIONS, hmacBase64, hmacHex } from './senders.js';

const PAYLOAD = '{"event":"ping","at":"2024-01-01T00:00:00Z"}';

function check(
  headers: RawHeaders,
  body: Buffer | string = PAYLOAD,
  options: VerifyOptions = OPTIONS,
) {
  return verify('hmac_sha256', HMAC_SECRET, options, headers, Buffer.from(body), NOW);
}

function signed(value: string): RawHeaders {
  return [['X-Signature', value]];
}

const base64url = (body: string) =>
  hmacBase64(body).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

describe('hmac_sha256', () => {
  it.each([
    ['lowercase hex', () => hmacHex(PAYLOAD)],
    ['uppercase hex', () => hmacHex(PAYLOAD).toUpperCase()],
    ['padded base64', () => hmacBase64(PAYLOAD)],
    ['unpadded base64', () => hmacBase64(PAYLOAD).replace(/=+$/, '')],
    ['base64url', () => base64url(PAYLOAD)],
    ['hex after sha256=', () => `sha256=${hmacHex(PAYLOAD)}`],
    ['base64 after sha256=', () => `sha256=${hmacBase64(PAYLOAD)}`],
    ['hex after SHA256=', () => `SHA256=${hmacHex(PAYLOAD)}`],
  ])('accepts a digest written as %s', (_name, value) => {
    expect(check(signed(value()))).toEqual({ label: 'valid' });
  });

  it('reads X-Signature by default, in any case', () => {
    expect(check([['x-signature', hmacHex(PAYLOAD)]])).toEqual({ label: 'valid' });
  });

  it("reads the endpoint's own signature header instead of X-Signature", () => {
    const options = { ...OPTIONS, signatureHeader: 'X-Acme-Signature' };
    expect(check([['x-acme-signature', hmacHex(PAYLOAD)]], PAYLOAD, options)).toEqual({
      label: 'valid',
    });
    expect(check(signed(hmacHex(PAYLOAD)), PAYLOAD, options)).toEqual({
      label: 'invalid',
      reason: 'missing_header',
    });
  });

  it('falls back to X-Signature when the configured header name is blank', () => {
    for (const signatureHeader of [null, '', '  ']) {
      const options = { ...OPTIONS, signatureHeader };
      expect(check(signed(hmacHex(PAYLOAD)), PAYLOAD, options)).toEqual({ label: 'valid' });
    }
  });

  it('rejects a tampered body as a mismatch', () => {
    expect(check(signed(hmacHex(PAYLOAD)), `${PAYLOAD}\n`)).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('rejects a request signed with another secret as a mismatch', () => {
    for (const value of [hmacHex(PAYLOAD, 'other'), hmacBase64(PAYLOAD, 'other')]) {
      expect(check(signed(value))).toEqual({ label: 'invalid', reason: 'mismatch' });
    }
  });

  it('reports a missing or empty header as missing_header', () => {
    expect(check([])).toEqual({ label: 'invalid', reason: 'missing_header' });
    expect(check(signed(''))).toEqual({ label: 'invalid', reason: 'missing_header' });
  });

  it.each([
    ['garbage', () => 'garbage'],
    ['truncated hex', () => hmacHex(PAYLOAD).slice(0, 63)],
    ['over-long hex', () => `${hmacHex(PAYLOAD)}0`],
    ['a SHA-1 sized hex digest', () => hmacHex(PAYLOAD).slice(0, 40)],
    ['truncated base64', () => hmacBase64(PAYLOAD).slice(0, 40)],
    ['over-long base64', () => `${hmacBase64(PAYLOAD).slice(0, 43)}AAAA`],
    ['a bare sha256= prefix', () => 'sha256='],
    [
      'hex with spaces inside',
      () =>
        hmacHex(PAYLOAD)
          .replace(/(.{8})/g, '$1 ')
          .trim(),
    ],
  ])('reports %s as malformed_header', (_name, value) => {
    expect(check(signed(value()))).toEqual({ label: 'invalid', reason: 'malformed_header' });
  });

  it('treats the signature header sent twice as malformed', () => {
    const value = hmacHex(PAYLOAD);
    expect(check([...signed(value), ['x-SIGNATURE', value]])).toEqual({
      label: 'invalid',
      reason: 'malformed_header',
    });
  });

  it('hashes invalid UTF-8 bytes as they arrived', () => {
    expect(check(signed(hmacHex(INVALID_UTF8)), INVALID_UTF8)).toEqual({ label: 'valid' });
    expect(check(signed(hmacHex(INVALID_UTF8.toString('utf8'))), INVALID_UTF8)).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });

  it('keeps a UTF-8 BOM at the start of the body and hashes it', () => {
    const body = Buffer.concat([BOM, Buffer.from(PAYLOAD)]);
    expect(check(signed(hmacBase64(body)), body)).toEqual({ label: 'valid' });
    expect(check(signed(hmacBase64(PAYLOAD)), body)).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });
});
