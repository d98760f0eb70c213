import { describe, expect, it } from 'vitest';
import { fromColumns, toColumns } from '../../src/store/captureColumns.js';
import { capturedEvent } from '../helpers/events.js';

describe('capture batch columns', () => {
  it('carry every field of every event, bodies byte for byte, through a structured clone', () => {
    const items = [
      capturedEvent(1, 7, 100, Buffer.from([0, 255, 1, 254])),
      capturedEvent(2, 7, 101, Buffer.alloc(0), {
        method: 'GET',
        path: '/deep/path',
        queryString: 'a=1&a=2',
        contentType: null,
        truncated: true,
        signature: 'invalid',
        signatureReason: 'mismatch',
        forwardStatus: 'not_forwarded',
      }),
      capturedEvent(1, 7, 102, 'x'.repeat(70_000), {
        signature: 'valid',
        signatureKey: 'previous',
        forwardStatus: 'pending',
        firstAttemptUrl: 'https://example.com/hook?x=1',
      }),
    ];
    const batch = toColumns(items);
    const cloned = structuredClone(batch, { transfer: [batch.bodies] });
    expect(batch.bodies.byteLength).toBe(0); // moved, not copied
    const back = fromColumns(cloned);
    expect(back).toEqual(items);
    expect(back.every((e) => Buffer.isBuffer(e.body))).toBe(true);
  });
});
