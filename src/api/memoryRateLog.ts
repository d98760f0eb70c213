import type { RateDecision, RateUsage } from '../store/rateLimits.js';
import type { RateLimiter, RateLimitPolicy } from './rateLimit.js';

/**
 * The sliding log in memory, for SQLite mode: one process serves the API, so the
 * budget needs no shared store, and an API call costs no write transaction. A restart
 * forgets the log (at worst a client gets one extra minute's worth of requests).
 */
export class MemoryRateLog implements RateLimiter {
  private readonly logs = new Map<number, number[]>();
  private lastSweep = 0;

  constructor(readonly policy: RateLimitPolicy) {}

  async take(keyId: number, now: number): Promise<RateDecision> {
    this.sweep(now);
    const log = this.current(keyId, now);
    const admitted = log.length < this.policy.max;
    if (admitted) log.push(now);
    this.logs.set(keyId, log);
    return { admitted, used: log.length, oldest: oldestOf(log) };
  }

  async peek(keyId: number, now: number): Promise<RateUsage> {
    const log = this.current(keyId, now);
    return { used: log.length, oldest: oldestOf(log) };
  }

  private current(keyId: number, now: number): number[] {
    const cutoff = now - this.policy.windowMicros;
    return (this.logs.get(keyId) ?? []).filter((t) => t > cutoff);
  }

  /** Drops logs that have emptied, once a window, so idle keys do not accumulate. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.policy.windowMicros) return;
    this.lastSweep = now;
    const cutoff = now - this.policy.windowMicros;
    for (const [keyId, log] of this.logs) {
      if (!log.some((t) => t > cutoff)) this.logs.delete(keyId);
    }
  }
}

function oldestOf(log: number[]): number | null {
  return log.length === 0 ? null : Math.min(...log);
}
