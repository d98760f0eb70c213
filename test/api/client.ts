// Helpers for the REST API tests: users on a given plan with a key, and calls with it.
import { storedIds } from '../helpers/events.js';
import type { RunningService } from '../../src/service.js';
import { type CapturedEvent, insertCapturedEvents } from '../../src/store/capture.js';
import type { Plan } from '../../src/store/schema.js';
import { setUserPlan } from '../../src/store/users.js';
import { type Session, signUp } from '../helpers/http.js';

export interface ApiAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/** GET `path` (or a full URL, such as `next`) with an optional Authorization header. */
export async function apiGet(
  baseUrl: string,
  path: string,
  authorization?: string,
): Promise<ApiAnswer> {
  const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
  const response = await fetch(url, {
    headers: authorization === undefined ? {} : { authorization },
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, headers: response.headers };
}

export interface ApiUser {
  session: Session;
  key: string;
  get(path: string): Promise<ApiAnswer>;
}

/** Creates (or replaces) the session user's key through the dashboard call. */
export async function createKey(session: Session): Promise<string> {
  const created = await session.call('POST', '/app/api/api-key');
  if (created.status !== 201) {
    throw new Error(`api-key failed: ${created.status} ${JSON.stringify(created.body)}`);
  }
  return created.body.key;
}

/** A new user on `plan` (set as `hookwatch user plan` does) with an API key. */
export async function apiUser(service: RunningService, plan: Plan = 'startup'): Promise<ApiUser> {
  const session = await signUp(service.url);
  if (plan !== 'free') await setUserPlan(service.services.store, session.email, plan);
  const key = await createKey(session);
  return { session, key, get: (path) => apiGet(service.url, path, `Bearer ${key}`) };
}

export function rateHeaders(answer: ApiAnswer) {
  return {
    limit: answer.headers.get('x-ratelimit-limit'),
    remaining: answer.headers.get('x-ratelimit-remaining'),
    reset: answer.headers.get('x-ratelimit-reset'),
    retryAfter: answer.headers.get('retry-after'),
  };
}

export { capturedEvent } from '../helpers/events.js';

/**
 * Stores events straight through the capture store function, so these suites test the
 * API and not the capture path (which has its own).
 */
export async function storeEvents(
  service: RunningService,
  events: CapturedEvent[],
): Promise<number[]> {
  return storedIds(await insertCapturedEvents(service.services.store, events));
}
