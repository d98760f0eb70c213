import type { FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence without tokens (DESIGN §8): a cross-site page cannot send JSON without a
 * preflight, and browsers always label cross-site requests. Scripts send neither header.
 */
export function checkCrossSite(request: FastifyRequest, baseUrl: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(baseUrl).origin) {
    throw new HttpError(
      403,
      'forbidden_origin',
      `Requests from ${origin} are not allowed; use ${new URL(baseUrl).origin}.`,
    );
  }
  if (request.headers['sec-fetch-site'] === 'cross-site') {
    throw new HttpError(403, 'forbidden_origin', 'Cross-site requests are not allowed.');
  }
  if (SAFE.has(request.method)) return;
  const length = Number(request.headers['content-length'] ?? 0);
  const hasBody = length > 0 || request.headers['transfer-encoding'] !== undefined;
  const type = request.headers['content-type'] ?? '';
  if (hasBody && !/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.');
  }
}
