import type { InvalidReason, VerifyResult } from './types.js';

export const VALID: VerifyResult = { label: 'valid' };

export function invalid(reason: InvalidReason): VerifyResult {
  return { label: 'invalid', reason };
}
