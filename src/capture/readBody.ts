import type { IncomingMessage } from 'node:http';

export interface ReadBody {
  /** At most `limit` bytes: the whole body, or its first `limit` bytes. */
  body: Buffer;
  /** Bytes received in all. */
  size: number;
  truncated: boolean;
}

/**
 * Reads a request body as raw bytes, for every method. Past `limit` the rest is read
 * and dropped as it arrives — counted, never buffered — so a huge body costs no memory.
 * Rejects when the sender goes away before the body is complete.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept >= limit) return;
      const room = limit - kept;
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks.push(piece);
      kept += piece.length;
    });
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, kept);
      resolve({ body, size, truncated: size > limit });
    });
    req.on('close', () => {
      if (!req.complete) reject(new Error('the sender closed the connection mid-body'));
    });
    req.on('error', reject);
  });
}
