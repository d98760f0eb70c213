// The SQLite capture writer, on a thread of its own: better-sqlite3 is synchronous, so on
// the main thread every commit (and its fsync) would stop the server from reading the
// next requests. Here the main thread keeps parsing while this thread commits a batch.
import { parentPort, workerData } from 'node:worker_threads';
import { type StoredIds, commitSqliteBatch } from './capture.js';
import { type CaptureColumns, fromColumns } from './captureColumns.js';
import { openSqliteConnection } from './db.js';

export interface CaptureRequest {
  seq: number;
  batch: CaptureColumns;
}

export type CaptureReply =
  { seq: number; ids: StoredIds } | { seq: number; error: { message: string; code?: string } };

const db = openSqliteConnection((workerData as { file: string }).file);
const port = parentPort!;

port.on('message', ({ seq, batch }: CaptureRequest) => {
  try {
    port.postMessage({
      seq,
      ids: commitSqliteBatch(db, fromColumns(batch)),
    } satisfies CaptureReply);
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    port.postMessage({ seq, error: { message, code } } satisfies CaptureReply);
  }
});

port.on('close', () => db.close());
