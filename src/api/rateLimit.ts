import { MICROS_PER_SECOND } from '../clock.js';
import type { Store } from '../store/db.js';
import {
  type RateDecision,
  type RateUsage,
  readRateUsage,
  takeRateSlot,
} from '../store/rateLimits.js';
import { MemoryRateLog } from './memoryRateLog.js';

export interface RateLimitPolicy {
  /** Admitted requests allowed per key in any rolling window. */
  max: number;
  windowMicros: number;
}

/** DESIGN §7: at most 120 answered requests per key in any rolling 60 seconds. */
export const API_RATE_LIMIT: RateLimitPolicy = { max: 120, windowMicros: 60 * MICROS_PER_SECOND };

/**
 * A sliding log per API key. A fixed window would let 2 × max through across a window
 * boundary and a token bucket (or GCRA) refills during the minute; a log of admitted
 * times is exact and, at 120 entries a key, small.
 */
export interface RateLimiter {
  readonly policy: RateLimitPolicy;
  /** Admits and records the request, or refuses it without recording it. */
  take(keyId: number, now: number): Promise<RateDecision>;
  /** The usage as it stands, for answers that do not use budget. */
  peek(keyId: number, now: number): Promise<RateUsage>;
}

/** In the database on PostgreSQL (all instances share it); in memory on SQLite (one process). */
export function createRateLimiter(
  store: Store,
  policy: RateLimitPolicy = API_RATE_LIMIT,
): RateLimiter {
  switch (store.dialect) {
    case 'sqlite':
      return new MemoryRateLog(policy);
    case 'postgres':
      return {
        policy,
        take: (keyId, now) => takeRateSlot(store, { keyId, now, ...policy }),
        peek: (keyId, now) =>
          readRateUsage(store, { keyId, now, windowMicros: policy.windowMicros }),
      };
  }
}

/** When the oldest admitted request leaves the window and a slot frees (microseconds). */
function slotFreesAt(policy: RateLimitPolicy, usage: RateUsage, now: number): number {
  return usage.oldest === null ? now : usage.oldest + policy.windowMicros;
}

/** Whole seconds until a slot frees, at least 1 (DESIGN §7's Retry-After). */
export function retryAfterSeconds(policy: RateLimitPolicy, usage: RateUsage, now: number): number {
  return Math.max(1, Math.ceil((slotFreesAt(policy, usage, now) - now) / MICROS_PER_SECOND));
}

/**
 * X-RateLimit-* as GitHub sends them: the limit, what is left, and the Unix time (whole
 * seconds, rounded up so waiting until then always suffices) when the oldest counted
 * request leaves the window — the moment Remaining next goes up.
 */
export function rateLimitHeaders(
  policy: RateLimitPolicy,
  usage: RateUsage,
  now: number,
): Record<string, string> {
  return {
    'x-ratelimit-limit': String(policy.max),
    'x-ratelimit-remaining': String(Math.max(0, policy.max - usage.used)),
    'x-ratelimit-reset': String(Math.ceil(slotFreesAt(policy, usage, now) / MICROS_PER_SECOND)),
  };
}
