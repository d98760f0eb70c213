// A webhook receiver for tests: a bare `node:http` server on 127.0.0.1, port 0, that
// records each request exactly as it arrived (raw header list, exact body bytes) and
// answers however the test says, changeable at any time.
//
//   const receiver = await startReceiver();            // answers 200 "ok"
//   receiver.answer({ status: 500, body: 'nope' });    // from now on
//   receiver.answer((req, res) => { … });              // full control (or never answer)
//   const [first] = await receiver.waitForRequests(1);
//   first.rawHeaders, first.body, first.header('x-hookwatch-event-id')
//   await receiver.close();                            // also cuts open connections
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** The request target as sent: path and raw query. */
  url: string;
  /** Node's raw list: name, value, name, value… in arrival order, case kept. */
  rawHeaders: string[];
  /** The same as [name, value] pairs. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** Date.now() when the body was complete. */
  at: number;
  /** First value of a header, case-insensitive; undefined when absent. */
  header(name: string): string | undefined;
}

/** A fixed answer, or a function that answers (or deliberately never does). */
export type Answer =
  | { status?: number; headers?: Record<string, string>; body?: string | Buffer }
  | ((request: ReceivedRequest, res: ServerResponse) => void | Promise<void>);

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Every request so far, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Changes the answer for requests that arrive from now on. */
  answer(answer: Answer): void;
  /** Resolves with every request so far once at least `count` arrived (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and destroys open connections (unanswered requests see a reset). */
  close(): Promise<void>;
}

function received(req: IncomingMessage, body: Buffer): ReceivedRequest {
  const headers: Array<[string, string]> = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  }
  return {
    method: req.method ?? '',
    url: req.url ?? '',
    rawHeaders: [...req.rawHeaders],
    headers,
    body,
    at: Date.now(),
    header: (name) => headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1],
  };
}

export async function startReceiver(
  initial: Answer = { status: 200, body: 'ok' },
): Promise<Receiver> {
  let current: Answer = initial;
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = received(req, Buffer.concat(chunks));
      requests.push(request);
      for (const wake of waiters.splice(0)) wake();
      const answer = current;
      if (typeof answer === 'function') {
        void Promise.resolve(answer(request, res)).catch(() => res.destroy());
        return;
      }
      res.writeHead(answer.status ?? 200, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    answer(answer) {
      current = answer;
    },
    async waitForRequests(count, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = until - Date.now();
        if (left <= 0) {
          throw new Error(
            `receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`,
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return requests.slice();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
