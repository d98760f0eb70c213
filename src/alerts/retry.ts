import { MICROS_PER_HOUR, MICROS_PER_MINUTE, MICROS_PER_SECOND } from '../clock.js';

/**
 * When a channel's send failed, the wait before its next try, by tries made so far:
 * 30 s, 2 min, 10 min, 1 h, 6 h — the forwarding schedule's shape, cut short, since a
 * notice that arrives days late is worth less than a clear "failed" in the dashboard.
 */
export const ALERT_RETRY_DELAYS_MICROS: readonly number[] = [
  30 * MICROS_PER_SECOND,
  2 * MICROS_PER_MINUTE,
  10 * MICROS_PER_MINUTE,
  MICROS_PER_HOUR,
  6 * MICROS_PER_HOUR,
];

/** After this many tries a channel is marked `failed` and left alone. */
export const ALERT_MAX_TRIES = ALERT_RETRY_DELAYS_MICROS.length + 1;

/** The wait after the `tries`-th failed try; null when the channel has had all its tries. */
export function alertRetryDelay(tries: number): number | null {
  if (tries >= ALERT_MAX_TRIES) return null;
  return ALERT_RETRY_DELAYS_MICROS[Math.max(0, tries - 1)] ?? null;
}
