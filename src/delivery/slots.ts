/**
 * Fairness (DESIGN §5): at most `total` attempts in flight in this process and at most
 * `perHost` toward one destination (host and port), so a slow receiver holds a few
 * slots while every other destination keeps going. Claimed attempts wait here in a
 * per-host line until a slot frees; a worker claims at most `PREFETCH` times the slots
 * ahead, so the next attempt starts the moment one finishes, without a database round
 * trip in between, and a saturated host never has more than that waiting on a lease.
 */
export const PREFETCH = 2;

export class DeliveryLanes<T> {
  private inFlight = 0;
  private queuedTotal = 0;
  private readonly flying = new Map<string, number>();
  private readonly lines = new Map<string, T[]>();

  constructor(
    readonly total: number,
    readonly perHost: number,
  ) {}

  /** How many more attempts this worker may claim now. */
  claimRoom(): number {
    return Math.max(0, PREFETCH * this.total - this.inFlight - this.queuedTotal);
  }

  /** How many more attempts for `host` it may claim now. */
  hostClaimRoom(host: string): number {
    const held = (this.flying.get(host) ?? 0) + (this.lines.get(host)?.length ?? 0);
    return Math.max(0, PREFETCH * this.perHost - held);
  }

  get busy(): number {
    return this.inFlight;
  }

  get waiting(): number {
    return this.queuedTotal;
  }

  hostWaiting(host: string): number {
    return this.lines.get(host)?.length ?? 0;
  }

  /**
   * Worth claiming again after a send to `host` finished: its line is down to half, so
   * claims come in batches rather than one per finished send.
   */
  wantsRefill(host: string): boolean {
    return this.hostWaiting(host) * 2 <= this.perHost;
  }

  enqueue(host: string, item: T): void {
    const line = this.lines.get(host);
    if (line) line.push(item);
    else this.lines.set(host, [item]);
    this.queuedTotal += 1;
  }

  /**
   * Takes the items that may start now, one host at a time in turn, and counts them as
   * in flight; `finish(host)` gives the slot back.
   */
  startable(): Array<{ host: string; item: T }> {
    const out: Array<{ host: string; item: T }> = [];
    let progressed = true;
    while (progressed && this.inFlight < this.total) {
      progressed = false;
      for (const [host, line] of this.lines) {
        if (this.inFlight >= this.total) break;
        if ((this.flying.get(host) ?? 0) >= this.perHost) continue;
        const item = line.shift()!;
        if (line.length === 0) this.lines.delete(host);
        this.queuedTotal -= 1;
        this.inFlight += 1;
        this.flying.set(host, (this.flying.get(host) ?? 0) + 1);
        out.push({ host, item });
        progressed = true;
      }
    }
    return out;
  }

  finish(host: string): void {
    this.inFlight -= 1;
    const left = (this.flying.get(host) ?? 1) - 1;
    if (left <= 0) this.flying.delete(host);
    else this.flying.set(host, left);
  }

  /** Everything still waiting (a stopping worker hands it back). */
  drain(): T[] {
    const items = [...this.lines.values()].flat();
    this.lines.clear();
    this.queuedTotal = 0;
    return items;
  }
}

/** The destination a URL counts against: `host:port` as the URL names it. */
export function destinationOf(url: string | null): string {
  if (url === null) return '';
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}
