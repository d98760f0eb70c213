import type { CapturedEvent } from '../store/capture.js';

interface Pending {
  event: CapturedEvent;
  resolve(id: number): void;
  reject(error: unknown): void;
}

export interface CommittedBatch {
  events: CapturedEvent[];
  ids: number[];
}

/** Commits a batch in one transaction and returns the ids in batch order. */
export type CommitBatch = (events: CapturedEvent[]) => Promise<number[]>;

/**
 * Group commit (DESIGN §3). Captures queue here; a transaction takes everything queued
 * (up to `maxBatch`), so requests that arrive while a commit is paying its fsync ride
 * the next one together. Each caller's promise settles only after its own transaction
 * committed — or failed, and then it must not answer 200.
 *
 * `maxInFlight` commits may run at once: 1 suits SQLite (one writer), a few suit
 * PostgreSQL, whose server works on one batch while the next is being sent.
 */
export class CaptureWriter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly commit: CommitBatch,
    private readonly options: {
      maxBatch?: number;
      maxInFlight?: number;
      onCommit?: (batch: CommittedBatch) => void;
    } = {},
  ) {}

  submit(event: CapturedEvent): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything submitted so far is committed (or failed). */
  async flush(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= (this.options.maxInFlight ?? 1)) return;
    this.scheduled = true;
    // setImmediate, not a timer: captures whose bodies finish in this turn of the event
    // loop join the batch without adding a fixed wait to every request.
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.queue.length === 0 || this.inFlight >= (this.options.maxInFlight ?? 1)) return;
    this.inFlight += 1;
    const batch = this.queue.splice(0, this.options.maxBatch ?? 500);
    const events = batch.map((p) => p.event);
    let ids: number[] | null = null;
    try {
      ids = await this.commit(events);
      batch.forEach((p, i) => p.resolve(ids![i]!));
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      this.inFlight -= 1;
      if (this.queue.length > 0) {
        this.schedule();
      } else if (this.inFlight === 0) {
        for (const done of this.idle.splice(0)) done();
      }
    }
    if (ids) this.options.onCommit?.({ events, ids });
  }
}
