import { VERIFY_SCHEMES, type VerifyScheme } from '../store/schema.js';
import { badRequest } from '../http/errors.js';
import { targetUrlProblem } from '../delivery/validateTarget.js';

/** The fields PATCH accepts (DESIGN §8); null turns a feature off. */
export interface EndpointChanges {
  name?: string;
  is_active?: boolean;
  forwarding?: string | null;
  verify_scheme?: VerifyScheme | null;
  signing_secret?: string | null;
  signature_header?: string | null;
  silence_minutes?: number | null;
  alert_webhook_url?: string | null;
}

const FIELDS = [
  'name',
  'is_active',
  'forwarding',
  'verify_scheme',
  'signing_secret',
  'signature_header',
  'silence_minutes',
  'alert_webhook_url',
] as const;

export const MAX_NAME_LENGTH = 200;
// Ten years: far beyond any useful silence threshold, well inside 64-bit microseconds.
const MAX_SILENCE_MINUTES = 10 * 366 * 24 * 60;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string') throw badRequest(field, 'must be a string');
  const name = value.trim();
  if (name === '') throw badRequest(field, 'must not be empty');
  if (name.length > MAX_NAME_LENGTH) {
    throw badRequest(field, `must be at most ${MAX_NAME_LENGTH} characters`);
  }
  return name;
}

function parseUrl(field: string, value: unknown, allowPrivate: boolean): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw badRequest(field, 'must be a URL string or null');
  const problem = targetUrlProblem(value.trim(), allowPrivate);
  if (problem) throw badRequest(field, problem);
  return value.trim();
}

/**
 * Validates a PATCH body field by field. Unknown fields are refused rather than
 * ignored, so a typo (`forwarding_url`) does not silently do nothing.
 */
export function parseEndpointChanges(body: unknown, allowPrivateTargets: boolean): EndpointChanges {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('body', 'must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw badRequest(key, `is not a known field (known: ${FIELDS.join(', ')})`);
    }
  }
  const changes: EndpointChanges = {};
  if ('name' in input) changes.name = parseName(input.name);
  if ('is_active' in input) {
    if (typeof input.is_active !== 'boolean')
      throw badRequest('is_active', 'must be true or false');
    changes.is_active = input.is_active;
  }
  if ('forwarding' in input) {
    changes.forwarding = parseUrl('forwarding', input.forwarding, allowPrivateTargets);
  }
  if ('verify_scheme' in input) {
    const v = input.verify_scheme;
    if (v !== null && !VERIFY_SCHEMES.includes(v as VerifyScheme)) {
      throw badRequest('verify_scheme', `must be one of ${VERIFY_SCHEMES.join(', ')} or null`);
    }
    changes.verify_scheme = v as VerifyScheme | null;
  }
  if ('signing_secret' in input) {
    const v = input.signing_secret;
    if (v !== null && (typeof v !== 'string' || v.trim() === '')) {
      throw badRequest('signing_secret', 'must be a non-empty string or null');
    }
    if (typeof v === 'string' && v.length > 1000) {
      throw badRequest('signing_secret', 'must be at most 1000 characters');
    }
    changes.signing_secret = typeof v === 'string' ? v.trim() : null;
  }
  if ('signature_header' in input) {
    const v = input.signature_header;
    if (v !== null && (typeof v !== 'string' || !HEADER_NAME.test(v) || v.length > 100)) {
      throw badRequest(
        'signature_header',
        'must be an HTTP header name (e.g. X-Signature) or null',
      );
    }
    changes.signature_header = v as string | null;
  }
  if ('silence_minutes' in input) {
    const v = input.silence_minutes;
    if (v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)) {
      throw badRequest('silence_minutes', 'must be a positive number of minutes or null');
    }
    if (typeof v === 'number' && v > MAX_SILENCE_MINUTES) {
      throw badRequest('silence_minutes', `must be at most ${MAX_SILENCE_MINUTES} (ten years)`);
    }
    changes.silence_minutes = v as number | null;
  }
  if ('alert_webhook_url' in input) {
    changes.alert_webhook_url = parseUrl(
      'alert_webhook_url',
      input.alert_webhook_url,
      allowPrivateTargets,
    );
  }
  return changes;
}
