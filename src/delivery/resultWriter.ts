import type { Logger } from 'pino';
import {
  type AttemptResult,
  type RecordedResult,
  type ReleasedAttempt,
  recordAttemptResults,
  releaseClaims,
} from '../store/attempts/index.js';
import type { Store } from '../store/db.js';
import { retryOffsetMicros } from './schedule.js';

export interface ResultWriterHooks {
  onRecorded(recorded: RecordedResult[]): void;
  onReleased(released: ReleasedAttempt[]): void;
}

const MAX_BATCH = 500;
const RETRIES = 3;
const RETRY_DELAY_MS = 1000;

/**
 * Records finished attempts in batches: everything that finishes while a transaction is
 * committing rides the next one, the way captures are group-committed. A batch that
 * cannot be written is retried a few times, then dropped with an error log — the rows
 * stay `in_flight`, their leases run out and they are sent again (at-least-once).
 */
export class ResultWriter {
  private results: AttemptResult[] = [];
  private handBacks: Array<{ attemptId: number; claimToken: string }> = [];
  private writing = false;
  private scheduled = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly hooks: ResultWriterHooks,
  ) {}

  record(result: AttemptResult): void {
    this.results.push(result);
    this.schedule();
  }

  /** An attempt claimed but not sent (the worker is stopping): back to the queue. */
  handBack(attemptId: number, claimToken: string): void {
    this.handBacks.push({ attemptId, claimToken });
    this.schedule();
  }

  /** Resolves once everything handed in so far is written (or given up on). */
  async flush(): Promise<void> {
    if (!this.writing && !this.scheduled && this.pending() === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pending(): number {
    return this.results.length + this.handBacks.length;
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.pending() > 0) {
        const results = this.results.splice(0, MAX_BATCH);
        const handBacks = this.handBacks.splice(0);
        if (results.length > 0) {
          const recorded = await this.withRetries('record attempt results', () =>
            recordAttemptResults(this.store, results, retryOffsetMicros),
          );
          if (recorded) this.hooks.onRecorded(recorded);
        }
        if (handBacks.length > 0) {
          const released = await this.withRetries('hand back attempts', () =>
            releaseClaims(this.store, handBacks),
          );
          if (released) this.hooks.onReleased(released);
        }
      }
    } finally {
      this.writing = false;
      for (const done of this.idle.splice(0)) done();
    }
  }

  private async withRetries<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fn();
      } catch (error) {
        if (attempt >= RETRIES) {
          this.logger.error(
            { err: error },
            `could not ${what}; their leases will run out and they are sent again`,
          );
          return null;
        }
        this.logger.warn({ err: error, attempt }, `could not ${what}; trying again`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      }
    }
  }
}
