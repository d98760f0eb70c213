/**
 * A timer for the next attempt due before the next poll would find it. Only the
 * earliest such time is kept: a later one is left to the poll or a later timer.
 */
export class WakeTimer {
  private timer: { at: number; handle: NodeJS.Timeout } | null = null;

  constructor(
    private readonly pollIntervalMs: number,
    private readonly onFire: () => void,
  ) {}

  /** Arms for `at` (µs; `now` is the same clock) unless the poll or an earlier timer comes first. */
  arm(at: number, now: number): void {
    const delayMs = Math.ceil((at - now) / 1000);
    if (delayMs >= this.pollIntervalMs) return;
    if (this.timer && this.timer.at <= at) return;
    if (this.timer) clearTimeout(this.timer.handle);
    const handle = setTimeout(() => {
      this.timer = null;
      this.onFire();
    }, delayMs);
    handle.unref();
    this.timer = { at, handle };
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer.handle);
  }
}
