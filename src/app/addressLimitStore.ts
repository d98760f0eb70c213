import type {
  FastifyRateLimitOptions,
  FastifyRateLimitStore,
  FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import { countAddressHit } from '../store/addressLimits.js';
import type { Store } from '../store/db.js';

/** What the plugin hands a route's store: the route itself, beside the limits. */
interface RouteParams {
  routeInfo?: { method?: string | string[]; url?: string };
}

function routeName(params: unknown): string {
  const route = (params as RouteParams).routeInfo;
  const method = Array.isArray(route?.method) ? route.method.join(',') : (route?.method ?? '');
  return `${method} ${route?.url ?? ''}`;
}

/**
 * A store for `@fastify/rate-limit` that keeps its counters in PostgreSQL, so instances
 * behind a load balancer share each address's budget (DESIGN §1) instead of each granting
 * its own. Each route counts apart, as with the plugin's memory store, and windows run on
 * the wall clock, as the plugin's own do.
 */
export function postgresAddressLimitStore(store: Store): FastifyRateLimitStoreCtor {
  class PostgresAddressLimitStore implements FastifyRateLimitStore {
    private readonly route: string;

    constructor(params: FastifyRateLimitOptions) {
      this.route = routeName(params);
    }

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const now = Date.now() * 1000;
      countAddressHit(store, { key: `${this.route}|${key}`, now, windowMicros: timeWindow * 1000 })
        .then(({ hits, windowEndsAt }) =>
          callback(null, { current: hits, ttl: Math.max(0, (windowEndsAt - now) / 1000) }),
        )
        .catch((error: unknown) => callback(error as Error));
    }

    child(routeOptions: unknown): FastifyRateLimitStore {
      return new PostgresAddressLimitStore(routeOptions as FastifyRateLimitOptions);
    }
  }
  return PostgresAddressLimitStore;
}
