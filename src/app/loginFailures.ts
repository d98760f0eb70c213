// Below this many tracked accounts the map is never swept.
const MIN_SWEEP_SIZE = 1024;

/**
 * Failed logins per account: 10 in any 15 minutes and the account refuses further
 * attempts until the oldest failure ages out (DESIGN §8). Kept per instance; the
 * per-address limit in front of it bounds what spreading over instances can gain.
 * Failures for addresses nobody tries again would stay forever, so a stream of logins
 * for made-up addresses could grow the map without end: once it doubles in size, every
 * account whose failures have all aged out is dropped.
 */
export class LoginFailures {
  private readonly failures = new Map<string, number[]>();
  private sweepAt = MIN_SWEEP_SIZE;

  constructor(
    private readonly max = 10,
    private readonly windowMicros = 15 * 60 * 1_000_000,
  ) {}

  /** Seconds until the account may try again, or 0 when it may now. */
  retryAfter(email: string, now: number): number {
    const recent = this.recent(email, now);
    if (recent.length < this.max) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMicros - now) / 1_000_000));
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
