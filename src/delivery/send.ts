import type { Dispatcher } from 'undici';
import type { HeaderPairs } from './headers.js';
import { BLOCKED_CODE } from './ssrf.js';

/** At most this much of a response body is read and kept (DESIGN §5). */
export const MAX_RESPONSE_BYTES = 16 * 1024;
export const TOTAL_TIMEOUT_MS = 30_000;

export interface OutboundRequest {
  method: string;
  url: string;
  headers: HeaderPairs;
  body: Buffer;
}

export interface SendOptions {
  /** Default 30 000 ms: connect, send and the (first 16 KiB of the) answer together. */
  totalTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Aborting hands the attempt back instead of recording it (a stopping worker). */
  signal?: AbortSignal;
}

export interface SendOutcome {
  statusCode: number | null;
  /** As the receiver sent them: raw order, case and duplicates. */
  responseHeaders: HeaderPairs | null;
  responseBody: Buffer | null;
  error: string | null;
  durationMs: number;
  /** The caller's signal stopped it: nothing to record. */
  abandoned: boolean;
}

/** Marks an abort that is ours (limit reached, deadline, stop) rather than a failure. */
class Interrupt extends Error {}

/** `/path?query` exactly as the URL string has it: the captured query is not re-encoded. */
function requestTarget(url: URL, raw: string): string {
  const q = raw.indexOf('?');
  if (q === -1) return url.pathname;
  const hash = raw.indexOf('#', q);
  return `${url.pathname}?${raw.slice(q + 1, hash === -1 ? undefined : hash)}`;
}

function rawPairs(raw: unknown): HeaderPairs {
  if (!Array.isArray(raw)) return [];
  const out: HeaderPairs = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const text = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v));
    out.push([text(raw[i]), text(raw[i + 1])]);
  }
  return out;
}

/** A sentence for the attempt's `error`, saying what went wrong in the user's terms. */
export function describeSendError(error: unknown, host: string): string {
  const e = error as { code?: string; message?: string; cause?: unknown } | null;
  const code = e?.code ?? (e?.cause as { code?: string } | undefined)?.code;
  const message = e?.message ?? String(error);
  switch (code) {
    case BLOCKED_CODE:
      return message;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connect timeout: no connection to ${host} within 10 s`;
    case 'ECONNREFUSED':
      return `connection refused by ${host}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `DNS lookup failed for ${host} (${code})`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `connection closed by ${host} before a complete answer`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} is unreachable (${code})`;
    default:
      if (
        code?.startsWith('ERR_TLS') ||
        code?.includes('CERT') ||
        /certificate|TLS|SSL/i.test(message)
      ) {
        return `TLS error talking to ${host}: ${message}`;
      }
      return code ? `${code}: ${message}` : message;
  }
}

/**
 * One outbound HTTP request with the delivery limits: total deadline, at most
 * `maxResponseBytes` of the body read (then the connection is dropped, so a 50 MB or
 * endless answer costs 16 KiB), no redirects followed. Never throws: every failure is
 * an outcome with an error text.
 */
export function sendRequest(
  dispatcher: Dispatcher,
  request: OutboundRequest,
  options: SendOptions = {},
): Promise<SendOutcome> {
  const totalMs = options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const started = performance.now();

  return new Promise<SendOutcome>((resolve) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      resolve(outcome(null, null, null, `invalid URL: ${request.url}`, 0, false));
      return;
    }
    let statusCode: number | null = null;
    let responseHeaders: HeaderPairs | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    let controller: Dispatcher.DispatchController | null = null;
    let pendingAbort: Interrupt | null = null;
    let settled = false;

    const elapsed = () => Math.round(performance.now() - started);
    const body = () => (statusCode === null ? null : Buffer.concat(chunks));
    const finish = (error: string | null, abandoned = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onStop);
      resolve(outcome(statusCode, responseHeaders, body(), error, elapsed(), abandoned));
    };
    const interrupt = (reason: Interrupt) => {
      if (controller) controller.abort(reason);
      else pendingAbort = reason; // not started yet: abort as soon as it does
    };
    const onStop = () => {
      interrupt(new Interrupt('stopping'));
      finish('the worker stopped before an answer', true);
    };

    const deadline = setTimeout(() => {
      interrupt(new Interrupt('deadline'));
      finish(`timeout: no complete answer from ${url.host} within ${totalMs / 1000} s`);
    }, totalMs);
    if (options.signal?.aborted) {
      onStop();
      return;
    }
    options.signal?.addEventListener('abort', onStop, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (pendingAbort) c.abort(pendingAbort);
      },
      onResponseStart(c, status) {
        statusCode = status;
        responseHeaders = rawPairs(c.rawHeaders);
      },
      onResponseData(c, chunk) {
        if (settled) return;
        const room = maxBytes - kept;
        if (room > 0) {
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(Buffer.from(part));
          kept += part.length;
        }
        if (kept >= maxBytes) {
          // Enough: stop reading and drop the connection rather than drain the rest.
          c.abort(new Interrupt('limit'));
          finish(null);
        }
      },
      onResponseEnd() {
        finish(null);
      },
      onResponseError(_c, error) {
        if (error instanceof Interrupt) return;
        finish(describeSendError(error, url.host));
      },
    };

    try {
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: requestTarget(url, request.url),
          method: request.method,
          headers: request.headers.flat(),
          body: request.body.length > 0 ? request.body : null,
        },
        handler,
      );
    } catch (error) {
      finish(describeSendError(error, url.host));
    }
  });
}

function outcome(
  statusCode: number | null,
  responseHeaders: HeaderPairs | null,
  responseBody: Buffer | null,
  error: string | null,
  durationMs: number,
  abandoned: boolean,
): SendOutcome {
  return { statusCode, responseHeaders, responseBody, error, durationMs, abandoned };
}
