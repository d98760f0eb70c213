import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { buildTargetUrl } from '../delivery/targetUrl.js';
import type { Metrics } from '../ops/metrics.js';
import type { CapturedEvent } from '../store/capture.js';
import type { ForwardStatus } from '../store/schema.js';
import { verifyWithRotation } from '../verify/index.js';
import type { CaptureTarget, EndpointCache } from './endpointCache.js';
import type { CaptureWriter } from './groupCommit.js';
import { readBody } from './readBody.js';

export interface CaptureDeps {
  config: Pick<Config, 'maxBodyBytes' | 'trustProxy' | 'signatureToleranceSeconds'>;
  clock: Clock;
  cache: EndpointCache;
  writer: CaptureWriter;
  metrics: Metrics;
  logger: Logger;
}

/** `/i/<token>` or `/i/<token>/<more path>`, with the raw query kept apart. */
export function parseCapturePath(
  url: string,
): { token: string; path: string; queryString: string } | null {
  if (!url.startsWith('/i/')) return null;
  const q = url.indexOf('?');
  const pathPart = q === -1 ? url : url.slice(0, q);
  const queryString = q === -1 ? '' : url.slice(q + 1);
  const rest = pathPart.slice(3);
  const slash = rest.indexOf('/');
  const token = slash === -1 ? rest : rest.slice(0, slash);
  if (token === '') return null;
  return { token, path: slash === -1 ? '' : rest.slice(slash), queryString };
}

export function isCaptureUrl(url: string | undefined): boolean {
  return url !== undefined && url.startsWith('/i/');
}

function sourceIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  extra?: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...extra,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function sendNotFound(res: ServerResponse): void {
  send(
    res,
    404,
    JSON.stringify({ error: 'not_found', detail: 'No endpoint has this capture URL.' }),
  );
}

function label(
  target: CaptureTarget,
  headers: Array<[string, string]>,
  body: Buffer,
  now: number,
  toleranceSeconds: number,
): Pick<CapturedEvent, 'signature' | 'signatureReason' | 'signatureKey'> {
  if (target.verify_scheme === null) {
    return { signature: null, signatureReason: null, signatureKey: null };
  }
  const previousLive =
    target.previous_secret_expires_at !== null && target.previous_secret_expires_at > now;
  const result = verifyWithRotation(
    target.verify_scheme,
    {
      current: target.signing_secret,
      previous: previousLive ? target.previous_signing_secret : null,
    },
    { signatureHeader: target.signature_header, toleranceSeconds },
    headers,
    body,
    Math.floor(now / 1_000_000),
  );
  return result.label === 'valid'
    ? { signature: 'valid', signatureReason: null, signatureKey: result.key }
    : { signature: 'invalid', signatureReason: result.reason, signatureKey: null };
}

/**
 * The capture route (DESIGN §3), on the bare Node request: it must take every method
 * and any body byte for byte, which Fastify's content-type parsing would not, and it is
 * the hot path. The 200 goes out only after the event's transaction committed.
 */
export function createCaptureHandler(deps: CaptureDeps) {
  const { config, clock, cache, writer, metrics, logger } = deps;
  return async function capture(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = clock.nowMicros();
    const started = performance.now();
    const parsed = parseCapturePath(req.url ?? '');
    try {
      const target = parsed ? await cache.get(parsed.token) : null;
      if (!parsed || !target) {
        req.resume();
        sendNotFound(res);
        return;
      }
      const { body, size, truncated } = await readBody(req, config.maxBodyBytes);
      const headers = pairs(req.rawHeaders);
      const verdict = label(target, headers, body, receivedAt, config.signatureToleranceSeconds);
      let forwardStatus: ForwardStatus | null = null;
      let firstAttemptUrl: string | null = null;
      if (target.forwarding_url !== null) {
        if (verdict.signature === 'invalid' || truncated) {
          forwardStatus = 'not_forwarded';
        } else {
          forwardStatus = 'pending';
          firstAttemptUrl = buildTargetUrl(target.forwarding_url, parsed.path, parsed.queryString);
        }
      }
      // From the raw pairs: touching req.headers would build a header object per request.
      const contentType =
        headers.find(
          ([name]) => name.length === 12 && name.toLowerCase() === 'content-type',
        )?.[1] ?? null;
      const id = await writer.submit({
        endpointId: target.id,
        userId: target.user_id,
        method: req.method ?? 'GET',
        path: parsed.path,
        queryString: parsed.queryString,
        headers: JSON.stringify(headers),
        body,
        size,
        contentType,
        sourceIp: sourceIp(req, config.trustProxy),
        receivedAt,
        truncated,
        // Spelled out rather than spread: this object is built for every capture.
        signature: verdict.signature,
        signatureReason: verdict.signatureReason,
        signatureKey: verdict.signatureKey,
        forwardStatus,
        firstAttemptUrl,
      });
      if (id === null) {
        // The endpoint was deleted while the request was being read: nothing was stored.
        sendNotFound(res);
        return;
      }
      send(res, 200, `{"ok":true,"event_id":${id}}`);
      metrics.captureLatency.observe((performance.now() - started) / 1000);
    } catch (error) {
      if (req.complete || !req.destroyed) {
        // Never a 200 for a request that was not kept (DESIGN §3).
        logger.error({ err: error }, 'capture could not be committed');
        metrics.captures.inc({ outcome: 'failed' });
        send(
          res,
          503,
          JSON.stringify({
            error: 'unavailable',
            detail: 'The request could not be stored; send it again.',
          }),
          { 'retry-after': '5' },
        );
      }
    }
  };
}
