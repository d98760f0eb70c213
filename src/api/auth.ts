import type { FastifyReply, FastifyRequest } from 'fastify';
import { MICROS_PER_MINUTE, MICROS_PER_SECOND } from '../clock.js';
import { HttpError } from '../http/errors.js';
import type { Services } from '../services.js';
import { type ApiKeyRow, findApiKeyOwner, touchApiKey } from '../store/apiKeys.js';
import type { Store } from '../store/db.js';
import type { User } from '../store/users.js';
import { API_KEY_PATTERN, hashApiKey } from './keys.js';
import { planHasApi } from './plans.js';
import { type RateLimiter, rateLimitHeaders, retryAfterSeconds } from './rateLimit.js';

export type ApiDeps = Pick<Services, 'store' | 'clock' | 'config'>;

// RFC 6750: the scheme is case-insensitive; the token is the rest of the header.
const BEARER = /^Bearer +(\S+) *$/i;

/** One answer whatever was wrong with the key, so a 401 says nothing about the key. */
const unauthorized = () =>
  new HttpError(
    401,
    'unauthorized',
    'Send a valid API key as "Authorization: Bearer hw_live_…"; create or replace it on the account settings page.',
    { 'www-authenticate': 'Bearer' },
  );

/** The live key presented in `Authorization` and its owner, else 401. */
async function authenticate(
  store: Store,
  header: string | undefined,
): Promise<{ key: ApiKeyRow; user: User }> {
  const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (presented === undefined || !API_KEY_PATTERN.test(presented)) throw unauthorized();
  // No cache: a replaced key and a plan change take effect on the very next request.
  const owner = await findApiKeyOwner(store, hashApiKey(presented));
  if (!owner) throw unauthorized();
  return owner;
}

/**
 * `last_used_at` to the minute: a write per API call would cost SQLite a transaction
 * and fsync each time for a timestamp nobody reads to the second.
 */
async function noteKeyUse(store: Store, key: ApiKeyRow, now: number): Promise<void> {
  if (key.last_used_at === null || key.last_used_at <= now - MICROS_PER_MINUTE) {
    await touchApiKey(store, key.id, now);
  }
}

const owners = new WeakMap<FastifyRequest, User>();

/** The key owner of a request that passed the gate. */
export function apiUser(request: FastifyRequest): User {
  const user = owners.get(request);
  if (!user) throw new Error('apiUser: the route does not run the API gate');
  return user;
}

/**
 * The onRequest hook of every authenticated API route, in DESIGN §7's order: a bad key is
 * 401 and a plan without the API is 403 — neither uses budget — then the rate limit (a
 * refused request uses none either), then the route. Validation runs after this hook,
 * so 400s count, as do 404s. Every answer to a valid key carries X-RateLimit-*.
 */
export function createApiGate(deps: ApiDeps, limiter: RateLimiter) {
  return async function apiGate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { key, user } = await authenticate(deps.store, request.headers.authorization);
    const now = deps.clock.nowMicros();
    await noteKeyUse(deps.store, key, now);
    if (!planHasApi(user.plan)) {
      reply.headers(rateLimitHeaders(limiter.policy, await limiter.peek(key.id, now), now));
      throw new HttpError(
        403,
        'plan_without_api',
        `The ${user.plan} plan has no API access; the startup and business plans do.`,
      );
    }
    const decision = await limiter.take(key.id, now);
    reply.headers(rateLimitHeaders(limiter.policy, decision, now));
    if (!decision.admitted) {
      const wait = retryAfterSeconds(limiter.policy, decision, now);
      throw new HttpError(
        429,
        'rate_limited',
        `This key made ${limiter.policy.max} requests in the last ${limiter.policy.windowMicros / MICROS_PER_SECOND} s, the most allowed; retry in ${wait} s.`,
        { 'retry-after': String(wait) },
      );
    }
    owners.set(request, user);
  };
}
