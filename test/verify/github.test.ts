import { describe, expect, it } from 'vitest';
import { type RawHeaders, verify } from '../../src/verify/index.js';
import {
  BOM,
  GITHUB_SECRET,
  INVALID_UTF8,
  NOW,
  OPTIONS,
  githubHeader,
  hmacHex,
  octokitAccepts,
} from './senders.js';

const PAYLOAD = JSON.stringify({ action: 'opened', number: 1, title: 'Zoë’s 🐛 fix' });

function check(headers: RawHeaders, body: Buffer | string = PAYLOAD) {
  return verify('github', GITHUB_SECRET, OPTIONS, headers, Buffer.from(body), NOW);
}

function signed(value: string): RawHeaders {
  return [['X-Hub-Signature-256', value]];
}

describe('github', () => {
  it('accepts a request signed by @octokit/webhooks-methods', async () => {
    expect(check(signed(await githubHeader(PAYLOAD)))).toEqual({ label: 'valid' });
  });

  it('matches the header name in any case', async () => {
    const value = await githubHeader(PAYLOAD);
    for (const name of ['x-hub-signature-256', 'X-HUB-SIGNATURE-256']) {
      expect(check([[name, value]])).toEqual({ label: 'valid' });
    }
  });

  it('rejects a tampered body as a mismatch', async () => {
    const value = await githubHeader(PAYLOAD);
    expect(check(signed(value), `${PAYLOAD} `)).toEqual({ label: 'invalid', reason: 'mismatch' });
    expect(await octokitAccepts(`${PAYLOAD} `, value, GITHUB_SECRET)).toBe(false);
  });

  it('rejects a request signed with another secret as a mismatch', async () => {
    const value = await githubHeader(PAYLOAD, 'another secret');
    expect(check(signed(value))).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('reports a missing header as missing_header, even with the old SHA-1 header present', () => {
    expect(check([])).toEqual({ label: 'invalid', reason: 'missing_header' });
    const sha1Only: RawHeaders = [
      ['X-Hub-Signature', 'sha1=0123456789abcdef0123456789abcdef01234567'],
    ];
    expect(check(sha1Only)).toEqual({ label: 'invalid', reason: 'missing_header' });
  });

  it.each([
    ['garbage', () => 'garbage'],
    ['bare hex without sha256=', () => hmacHex(PAYLOAD, GITHUB_SECRET)],
    ['an uppercase prefix', () => `SHA256=${hmacHex(PAYLOAD, GITHUB_SECRET)}`],
    ['a sha1= prefix', () => `sha1=${hmacHex(PAYLOAD, GITHUB_SECRET)}`],
  ])('reports %s as malformed_header', async (_name, value) => {
    expect(check(signed(value()))).toEqual({ label: 'invalid', reason: 'malformed_header' });
    expect(await octokitAccepts(PAYLOAD, value(), GITHUB_SECRET)).toBe(false);
  });

  it.each([
    ['an empty digest', () => 'sha256='],
    ['uppercase hex', () => `sha256=${hmacHex(PAYLOAD, GITHUB_SECRET).toUpperCase()}`],
    ['a truncated digest', () => `sha256=${hmacHex(PAYLOAD, GITHUB_SECRET).slice(0, 40)}`],
    ['an over-long digest', () => `sha256=${hmacHex(PAYLOAD, GITHUB_SECRET)}00`],
    [
      'a base64 digest',
      () => `sha256=${Buffer.from(hmacHex(PAYLOAD, GITHUB_SECRET), 'hex').toString('base64')}`,
    ],
  ])('reports %s as a mismatch, as octokit rejects it', async (_name, value) => {
    expect(check(signed(value()))).toEqual({ label: 'invalid', reason: 'mismatch' });
    expect(await octokitAccepts(PAYLOAD, value(), GITHUB_SECRET)).toBe(false);
  });

  it('treats the signature header sent twice as malformed', async () => {
    const value = await githubHeader(PAYLOAD);
    expect(check([['x-hub-signature-256', value], ...signed(value)])).toEqual({
      label: 'invalid',
      reason: 'malformed_header',
    });
  });

  it('hashes invalid UTF-8 bytes as they arrived', () => {
    const value = `sha256=${hmacHex(INVALID_UTF8, GITHUB_SECRET)}`;
    expect(check(signed(value), INVALID_UTF8)).toEqual({ label: 'valid' });
    const decoded = `sha256=${hmacHex(INVALID_UTF8.toString('utf8'), GITHUB_SECRET)}`;
    expect(check(signed(decoded), INVALID_UTF8)).toEqual({ label: 'invalid', reason: 'mismatch' });
  });

  it('keeps a UTF-8 BOM at the start of the body and hashes it', async () => {
    const body = Buffer.concat([BOM, Buffer.from(PAYLOAD)]);
    expect(check(signed(await githubHeader(`\uFEFF${PAYLOAD}`)), body)).toEqual({ label: 'valid' });
    expect(check(signed(await githubHeader(PAYLOAD)), body)).toEqual({
      label: 'invalid',
      reason: 'mismatch',
    });
  });
});
