import type { ServerResponse } from 'node:http';

/** A viewer that has fallen this far behind is cut off; it reconnects and catches up by id. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How long a browser waits before reconnecting (the SSE `retry:` field). */
const RETRY_MS = 3000;

/**
 * The Server-Sent Events wire format on a raw response (the route hijacks the reply:
 * Fastify's send-once model does not fit a response that stays open).
 */
export class SseStream {
  private ended = false;

  constructor(private readonly res: ServerResponse) {}

  get isOpen(): boolean {
    return !this.ended && !this.res.destroyed;
  }

  open(): void {
    // The socket closes when the stream ends, so a server shutting down does not wait
    // out a keep-alive timeout on a connection the browser will replace anyway.
    this.res.shouldKeepAlive = false;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx buffers proxied responses unless told not to.
      'x-accel-buffering': 'no',
    });
    this.res.write(`retry: ${RETRY_MS}\n\n`);
  }

  /** One message; `id` becomes the browser's Last-Event-ID for a reconnect. */
  send(event: string, data: unknown, id?: number): void {
    const idLine = id === undefined ? '' : `id: ${id}\n`;
    this.write(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line: ignored by browsers, but it keeps proxies from closing an idle stream. */
  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.res.destroyed) this.res.end();
  }

  private write(chunk: string): void {
    if (!this.isOpen) return;
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.res.destroy();
      this.ended = true;
      return;
    }
    this.res.write(chunk);
  }
}
