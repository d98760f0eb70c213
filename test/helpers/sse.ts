/** One Server-Sent Events message as a browser's EventSource would see it. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** Comment lines seen so far (heartbeats). */
  comments: string[];
  /** The next message (optionally the next of one type); rejects if the stream ends first. */
  next(event?: string): Promise<SseMessage>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Ends a wait that would otherwise hang a test; not a timing assertion. */
const GIVE_UP_MS = 15_000;

/**
 * A minimal EventSource over fetch (Node 20 has none): parses `event:`, `data:`, `id:` and
 * comment lines as the HTML spec's SSE parser does for the fields we send.
 */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  const queue: SseMessage[] = [];
  const comments: string[] = [];
  let waiter: (() => void) | null = null;
  let done = false;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));

  const pump = async () => {
    if (!response.body || response.status !== 200) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done: finished } = await reader
        .read()
        .catch(() => ({ value: '', done: true }));
      if (finished) break;
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const message: SseMessage = { event: 'message', data: '', id: undefined };
        let hasData = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line.slice(1).trim());
          else if (line.startsWith('event: ')) message.event = line.slice(7);
          else if (line.startsWith('data: ')) {
            message.data = line.slice(6);
            hasData = true;
          } else if (line.startsWith('id: ')) message.id = line.slice(4);
        }
        if (hasData) queue.push(message);
        waiter?.();
      }
    }
  };
  void pump().finally(() => {
    done = true;
    resolveEnded();
    waiter?.();
  });

  return {
    status: response.status,
    headers: response.headers,
    comments,
    ended,
    async next(event) {
      const deadline = Date.now() + GIVE_UP_MS;
      for (;;) {
        const index = queue.findIndex((m) => event === undefined || m.event === event);
        if (index >= 0) return queue.splice(index, 1)[0]!;
        if (done) throw new Error(`stream ended before a ${event ?? 'message'} arrived`);
        if (Date.now() > deadline) throw new Error(`no ${event ?? 'message'} arrived`);
        await new Promise<void>((resolve) => {
          waiter = resolve;
          setTimeout(resolve, 250);
        });
      }
    },
    close: () => abort.abort(),
  };
}
