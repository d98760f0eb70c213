import { Worker } from 'node:worker_threads';
import type { CapturedEvent, StoredIds } from './capture.js';
import { toColumns } from './captureColumns.js';
import type { CaptureReply, CaptureRequest } from './captureThread.js';
import { sqlitePath } from './db.js';

/**
 * The main thread's side of the SQLite capture thread: `commit(items)` resolves with
 * the ids once the batch's transaction committed on the thread.
 */
export class SqliteCaptureThread {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve(ids: StoredIds): void; reject(e: Error): void }
  >();
  private seq = 0;
  private failure: Error | null = null;

  constructor(url: string) {
    const workerData = { file: sqlitePath(url) };
    if (import.meta.url.endsWith('.ts')) {
      // Tests run the TypeScript sources: the thread registers the same loader first.
      const entry = new URL('./captureThread.ts', import.meta.url).href;
      const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
      this.worker = new Worker(boot, { eval: true, workerData });
    } else {
      this.worker = new Worker(new URL('./captureThread.js', import.meta.url), { workerData });
    }
    this.worker.on('message', (reply: CaptureReply) => {
      const waiting = this.pending.get(reply.seq);
      if (!waiting) return;
      this.pending.delete(reply.seq);
      if ('ids' in reply) waiting.resolve(reply.ids);
      else
        waiting.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) =>
      this.failAll(new Error(`the capture thread exited (${code})`)),
    );
  }

  commit(items: CapturedEvent[]): Promise<StoredIds> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const seq = ++this.seq;
      this.pending.set(seq, { resolve, reject });
      const batch = toColumns(items);
      this.worker.postMessage({ seq, batch } satisfies CaptureRequest, [batch.bodies]);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
