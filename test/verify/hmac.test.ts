import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacKey, hmacSha256 } from '../../src/verify/hmac.js';

type Encoding = 'hex' | 'base64';

function oracle(key: string | Uint8Array, prefix: string, body: Uint8Array, encoding: Encoding) {
  return createHmac('sha256', key).update(prefix, 'utf8').update(body).digest(encoding);
}

describe('hmacSha256 (RFC 2104 over one-shot hashes)', () => {
  it('equals createHmac for any string key, prefix and body', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 100 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.uint8Array({ maxLength: 3000 }),
        fc.constantFrom<Encoding>('hex', 'base64'),
        (key, prefix, body, encoding) => {
          expect(hmacSha256(key, prefix, body, encoding)).toBe(oracle(key, prefix, body, encoding));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('equals createHmac for byte keys, shorter than a block, exactly one, and longer', () => {
    for (const length of [0, 1, 32, 63, 64, 65, 200]) {
      const bytes = randomBytes(length);
      const body = randomBytes(1024);
      expect(hmacSha256(hmacKey(bytes), '1700000000.', body, 'base64')).toBe(
        oracle(bytes, '1700000000.', body, 'base64'),
      );
    }
  });

  it('streams bodies too large for its buffer, and is right again for the next small one', () => {
    const big = randomBytes(200 * 1024);
    const small = Buffer.from('{"ok":true}');
    expect(hmacSha256('whsec_x', 't.', big, 'hex')).toBe(oracle('whsec_x', 't.', big, 'hex'));
    expect(hmacSha256('whsec_x', '', small, 'hex')).toBe(oracle('whsec_x', '', small, 'hex'));
    // A body that just fits beside the pad and prefix, then one byte more.
    for (const length of [64 * 1024 - 64 - 2, 64 * 1024 - 64 - 1]) {
      const body = randomBytes(length);
      expect(hmacSha256('k', 'ab', body, 'base64')).toBe(oracle('k', 'ab', body, 'base64'));
    }
  });

  it('takes a Buffer or any other Uint8Array view as the body', () => {
    const backing = randomBytes(100);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 10, 50);
    expect(hmacSha256('s', 'p', view, 'hex')).toBe(oracle('s', 'p', view, 'hex'));
  });
});
