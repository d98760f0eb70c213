import { describe, expect, it } from 'vitest';
import { findHeader, singleHeader } from '../../src/verify/headers.js';

describe('findHeader', () => {
  it('finds a header whatever the case of either name', () => {
    expect(findHeader([['x-signature', 'a']], 'X-Signature')).toEqual({ found: 'one', value: 'a' });
    expect(findHeader([['X-SIGNATURE', 'a']], 'x-signature')).toEqual({ found: 'one', value: 'a' });
  });

  it('reports a header that is not there as missing', () => {
    expect(findHeader([], 'X-Signature')).toEqual({ found: 'missing' });
    expect(findHeader([['X-Signatures', 'a']], 'X-Signature')).toEqual({ found: 'missing' });
  });

  it('reports two entries differing only in case as a duplicate', () => {
    const headers = [
      ['Webhook-Id', 'a'],
      ['webhook-id', 'a'],
    ] as const;
    expect(findHeader(headers, 'webhook-id')).toEqual({ found: 'duplicate' });
  });

  it('folds ASCII case only, so a Kelvin sign does not pose as "k"', () => {
    expect('webhoo\u212A-id'.toLowerCase()).toBe('webhook-id');
    expect(findHeader([['webhoo\u212A-id', 'x']], 'webhook-id')).toEqual({ found: 'missing' });
  });

  it('strips spaces and tabs around the value, as HTTP parsers do', () => {
    expect(findHeader([['X-Signature', ' \tabc \t']], 'x-signature')).toEqual({
      found: 'one',
      value: 'abc',
    });
  });
});

describe('singleHeader', () => {
  it('maps missing and empty values to missing_header and duplicates to malformed_header', () => {
    expect(singleHeader([], 'a')).toEqual({ ok: false, reason: 'missing_header' });
    expect(singleHeader([['a', '  ']], 'a')).toEqual({ ok: false, reason: 'missing_header' });
    expect(
      singleHeader(
        [
          ['a', '1'],
          ['A', '2'],
        ],
        'a',
      ),
    ).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
    expect(singleHeader([['A', '1']], 'a')).toEqual({ ok: true, value: '1' });
  });
});
