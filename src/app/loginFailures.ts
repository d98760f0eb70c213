import type { Store } from '../store/db.js';
import { clearLoginFailures, takeLoginAttempt } from '../store/loginFailures.js';

const MAX_FAILURES = 10;
const WINDOW_MICROS = 15 * 60 * 1_000_000;
// Below this many tracked accounts the in-memory map is never swept.
const MIN_SWEEP_SIZE = 1024;

/**
 * Failed logins per account: 10 in any 15 minutes and the account refuses further
 * attempts until the oldest failure ages out (DESIGN §8). An attempt counts as a failure
 * from the moment it is let through until its password proves right, so attempts that
 * race (argon2 takes a while) cannot all pass the check before any of them fails.
 */
export interface LoginThrottle {
  /** 0 when the attempt may go ahead (it counts as failed until cleared), else seconds to wait. */
  admit(email: string, now: number): Promise<number>;
  /** The password was right: the account starts afresh. */
  clear(email: string): Promise<void>;
}

function secondsUntil(oldest: number, now: number, windowMicros: number): number {
  return Math.max(1, Math.ceil((oldest + windowMicros - now) / 1_000_000));
}

/**
 * SQLite mode is one process: the failures are kept in memory. On PostgreSQL every
 * instance counts against the same log, in the database (DESIGN §1), or each of N
 * instances behind a load balancer would allow its own 10; the retention sweep drops the
 * rows of addresses nobody tries again.
 */
export function createLoginThrottle(store: Store): LoginThrottle {
  if (store.dialect === 'sqlite') {
    const failures = new LoginFailures(MAX_FAILURES, WINDOW_MICROS);
    return {
      admit: async (email, now) => failures.admit(email, now),
      clear: async (email) => failures.clear(email),
    };
  }
  return {
    async admit(email, now) {
      const { admitted, oldest } = await takeLoginAttempt(store, {
        email,
        now,
        windowMicros: WINDOW_MICROS,
        max: MAX_FAILURES,
      });
      return admitted ? 0 : secondsUntil(oldest ?? now, now, WINDOW_MICROS);
    },
    clear: (email) => clearLoginFailures(store, email),
  };
}

/**
 * The in-memory log of failed logins, per account.
 * Failures for addresses nobody tries again would stay forever, so a stream of logins
 * for made-up addresses could grow the map without end: once it doubles in size, every
 * account whose failures have all aged out is dropped.
 */
export class LoginFailures {
  private readonly failures = new Map<string, number[]>();
  private sweepAt = MIN_SWEEP_SIZE;

  constructor(
    private readonly max = MAX_FAILURES,
    private readonly windowMicros = WINDOW_MICROS,
  ) {}

  /** Seconds until the account may try again, or 0 when it may now. */
  retryAfter(email: string, now: number): number {
    const recent = this.recent(email, now);
    if (recent.length < this.max) return 0;
    return secondsUntil(recent[0]!, now, this.windowMicros);
  }

  /** `retryAfter`, and when that is 0 the attempt is recorded as a failure at once. */
  admit(email: string, now: number): number {
    const wait = this.retryAfter(email, now);
    if (wait === 0) this.record(email, now);
    return wait;
  }

  record(email: string, now: number): void {
    const recent = this.recent(email, now);
    recent.push(now);
    this.failures.set(email, recent);
    if (this.failures.size >= this.sweepAt) this.sweep(now);
  }

  /** How many accounts have failures on record. */
  get tracked(): number {
    return this.failures.size;
  }

  clear(email: string): void {
    this.failures.delete(email);
  }

  private sweep(now: number): void {
    for (const email of this.failures.keys()) this.recent(email, now);
    // Doubling keeps the sweeps' cost constant per recorded failure.
    this.sweepAt = Math.max(MIN_SWEEP_SIZE, this.failures.size * 2);
  }

  private recent(email: string, now: number): number[] {
    const list = (this.failures.get(email) ?? []).filter((t) => t > now - this.windowMicros);
    if (list.length === 0) this.failures.delete(email);
    else this.failures.set(email, list);
    return list;
  }
}
