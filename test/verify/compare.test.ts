import { describe, expect, it } from 'vitest';
import { anyConstantTimeEqual, constantTimeEqual } from '../../src/verify/compare.js';

describe('constantTimeEqual', () => {
  it('says equal for the same bytes, as string or buffer', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual(Buffer.from('abc'), 'abc')).toBe(true);
  });

  it('returns false instead of throwing when the lengths differ', () => {
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual(Buffer.alloc(32), Buffer.alloc(0))).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
  });

  it('compares text as UTF-8, so non-ASCII text of the same length is not equal', () => {
    expect(constantTimeEqual('ab', 'a\u00e9')).toBe(false);
    expect(constantTimeEqual('a\u00e9', 'a\u00e9')).toBe(true);
    expect(constantTimeEqual('\u00e9', Buffer.from('\u00e9'))).toBe(true);
  });

  it('compares text longer than the scratch space the same way', () => {
    const long = 'x'.repeat(1000);
    expect(constantTimeEqual(long, long)).toBe(true);
    expect(constantTimeEqual(long, `${long.slice(0, -1)}y`)).toBe(false);
    expect(constantTimeEqual('x', long)).toBe(false);
  });

  it('answers each comparison alone, whatever was compared before', () => {
    expect(constantTimeEqual('abcdef', 'abcdef')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('abcdef', 'abcdeg')).toBe(false);
  });

  it('tells apart values that differ in one byte only', () => {
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual(Buffer.from([0, 0, 1]), Buffer.from([0, 0, 0]))).toBe(false);
  });
});

describe('anyConstantTimeEqual', () => {
  it('finds the expected value anywhere in the list', () => {
    expect(anyConstantTimeEqual('b', ['a', 'b', 'c'])).toBe(true);
    expect(anyConstantTimeEqual('b', ['b', 'b'])).toBe(true);
    expect(anyConstantTimeEqual('b', ['a', 'c'])).toBe(false);
    expect(anyConstantTimeEqual('b', [])).toBe(false);
  });
});
