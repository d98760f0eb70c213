import { HttpError, badRequest } from '../http/errors.js';
import type { Bus } from '../store/bus.js';
import type { Store } from '../store/db.js';
import {
  type AttemptRow,
  cancelEventRetries,
  insertReplayAttempt,
} from '../store/attempts/index.js';
import type { EventRow } from '../store/events.js';
import { buildTargetUrl } from './targetUrl.js';
import { targetUrlProblem } from './validateTarget.js';

/** The body of `POST /app/api/events/<id>/replay`: `{}` or `{"target_url": "…"}`. */
export function parseReplayBody(body: unknown, allowPrivateTargets: boolean): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('body', 'must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (key !== 'target_url') throw badRequest(key, 'is not a known field (known: target_url)');
  }
  const value = input.target_url;
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest('target_url', 'must be a URL string');
  const problem = targetUrlProblem(value.trim(), allowPrivateTargets);
  if (problem) throw badRequest('target_url', problem);
  return value.trim();
}

/**
 * Where a replay goes (DESIGN §5), or why it cannot: invalid and truncated events are
 * never sent (409), and without a forwarding URL the user must name a target.
 */
export function replayTarget(
  event: Pick<
    EventRow,
    'signature' | 'signature_reason' | 'truncated' | 'size' | 'body' | 'path' | 'query_string'
  >,
  forwardingUrl: string | null,
  givenTarget: string | null,
): string {
  if (event.signature === 'invalid') {
    throw new HttpError(
      409,
      'invalid_event',
      `This request failed signature verification (${event.signature_reason ?? 'invalid'}); ` +
        'requests with an invalid signature are never forwarded or replayed.',
    );
  }
  if (event.truncated === 1) {
    throw new HttpError(
      409,
      'truncated_event',
      `This request's body was ${event.size} bytes and only the first ${event.body.length} were kept; ` +
        'replaying it would send a different request.',
    );
  }
  if (givenTarget !== null) return givenTarget;
  if (forwardingUrl === null) {
    throw new HttpError(
      409,
      'no_target',
      'The endpoint has no forwarding URL; give a target_url to replay this request to.',
    );
  }
  return buildTargetUrl(forwardingUrl, event.path, event.query_string);
}

/** Queues the replay as an attempt due now and wakes a worker (any instance). */
export async function queueReplay(
  deps: { store: Store; bus: Bus; now: number },
  event: Pick<EventRow, 'id' | 'endpoint_id'>,
  target: string,
): Promise<AttemptRow> {
  const row = await insertReplayAttempt(deps.store, {
    eventId: event.id,
    endpointId: event.endpoint_id,
    targetUrl: target,
    now: deps.now,
  });
  await deps.bus.publish('attempt_updated', `${event.endpoint_id}:${event.id}`);
  await deps.bus.publish('attempt_due', '');
  return row;
}

/** Cancels the event's scheduled retries (DESIGN §8); an attempt in flight still finishes. */
export async function cancelRetries(
  deps: { store: Store; bus: Bus },
  event: Pick<EventRow, 'id' | 'endpoint_id'>,
): Promise<void> {
  await cancelEventRetries(deps.store, event.id);
  await deps.bus.publish('attempt_updated', `${event.endpoint_id}:${event.id}`);
}
