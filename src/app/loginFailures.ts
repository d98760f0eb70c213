/**
 * Failed logins per account: 10 in any 15 minutes and the account refuses further
 * attempts until the oldest failure ages out (DESIGN §8). Kept per instance; the
 * per-address limit in front of it bounds what spreading over instances can gain.
 */
export class LoginFailures {
  private readonly failures = new Map<string, number[]>();

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
  }

  clear(email: string): void {
    this.failures.delete(email);
  }

  private recent(email: string, now: number): number[] {
    const list = (this.failures.get(email) ?? []).filter((t) => t > now - this.windowMicros);
    if (list.length === 0) this.failures.delete(email);
    else this.failures.set(email, list);
    return list;
  }
}
