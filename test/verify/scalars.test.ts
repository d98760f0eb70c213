import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasSecret } from '../../src/verify/secret.js';
import { parseUnixSeconds } from '../../src/verify/timestamp.js';

// The rules as regular expressions: the hand-written scanners must agree with them exactly.
const digitsOnly = (value: string) => (/^\d+$/.test(value) ? Number.parseInt(value, 10) : null);
const blank = /^[ \t\r\n\f\v]*$/;

// Strings built mostly from the characters that matter, so the properties reach the edges.
const timestampText = fc.oneof(
  fc.stringMatching(/^\d{1,25}$/),
  fc.string({ unit: fc.constantFrom('0', '1', '9', '/', ':', ' ', 'e', '-', '٣', '１') }),
  fc.string(),
);
const secretText = fc.oneof(
  fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u2028', 'w') }),
  fc.string(),
);

describe('parseUnixSeconds', () => {
  it('reads digits-only text as parseInt does and refuses everything else', () => {
    fc.assert(
      fc.property(timestampText, (value) => {
        expect(parseUnixSeconds(value)).toBe(digitsOnly(value));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['1763872000', 1763872000],
    ['0123', 123],
    ['999999999999999', 999999999999999],
    ['12345678901234567890', Number.parseInt('12345678901234567890', 10)],
  ])('reads %j as %d', (value, expected) => {
    expect(parseUnixSeconds(value)).toBe(expected);
  });

  it.each([[undefined], [''], [' 12'], ['12 '], ['17e9'], ['-5'], ['12.5'], ['１２']])(
    'refuses %j',
    (value) => {
      expect(parseUnixSeconds(value)).toBeNull();
    },
  );
});

describe('hasSecret', () => {
  it('is false exactly for null and ASCII-blank text', () => {
    fc.assert(
      fc.property(secretText, (secret) => {
        expect(hasSecret(secret)).toBe(!blank.test(secret));
      }),
      { numRuns: 2000 },
    );
    expect(hasSecret(null)).toBe(false);
  });

  it('counts a non-ASCII space as content, as the blank rule does', () => {
    expect(hasSecret('\u00a0')).toBe(true);
    expect(hasSecret(' \t\n\v\f\r')).toBe(false);
  });
});
