import { MICROS_PER_SECOND } from '../clock.js';

/**
 * When automatic attempts go out (DESIGN §5), each offset counted from the END of the
 * previous attempt: 1 immediately, 2 +30 s, 3 +2 min, 4 +10 min, 5 +1 h, then +6 h each
 * until a 2xx. Index = automatic attempt number − 1; the last entry repeats.
 */
export const RETRY_OFFSETS_SECONDS: readonly number[] = [0, 30, 120, 600, 3600, 21_600];

/** The offset of automatic attempt `autoSeq` (1-based) from the end of the one before. */
export function retryOffsetMicros(autoSeq: number): number {
  const index = Math.min(Math.max(autoSeq, 1), RETRY_OFFSETS_SECONDS.length) - 1;
  return RETRY_OFFSETS_SECONDS[index]! * MICROS_PER_SECOND;
}

/** A 2xx and nothing else is a delivery; redirects are not followed, so 3xx fails too. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 300;
}
