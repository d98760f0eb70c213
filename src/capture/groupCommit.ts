import type { Store } from '../store/db.js';
import { type CapturedEvent, insertCapturedEvents } from '../store/capture.js';

interface Pending {
  event: CapturedEvent;
  resolve(id: number): void;
  reject(error: unknown): void;
}

export interface CommittedBatch {
  events: CapturedEvent[];
  ids: number[];
}

/**
 * Group commit (DESIGN §3). Captures queue here; one transaction at a time takes
 * everything queued (up to `maxBatch`), so requests that arrive while a commit is
 * paying its fsync ride the next one together. Each caller's promise settles only
 * after its own transaction committed — or failed, and then it must not answer 200.
 */
export class CaptureWriter {
  private queue: Pending[] = [];
  private writing = false;
  private scheduled = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly options: {
      maxBatch?: number;
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
    if (!this.writing && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a timer: captures whose bodies finish in this turn of the event
    // loop join the batch without adding a fixed wait to every request.
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const max = this.options.maxBatch ?? 500;
    const batch = this.queue.slice(0, max);
    this.queue = this.queue.slice(max);
    const events = batch.map((p) => p.event);
    let ids: number[] | null = null;
    try {
      ids = await insertCapturedEvents(this.store, events);
      batch.forEach((p, i) => p.resolve(ids![i]!));
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) {
        this.schedule();
      } else {
        for (const done of this.idle.splice(0)) done();
      }
    }
    if (ids) this.options.onCommit?.({ events, ids });
  }
}
