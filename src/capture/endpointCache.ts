import type { Bus } from '../store/bus.js';
import type { Store } from '../store/db.js';
import { type Endpoint, findEndpointByToken } from '../store/endpoints.js';

/** What capture needs to know about an endpoint, kept off the database on the hot path. */
export type CaptureTarget = Pick<
  Endpoint,
  | 'id'
  | 'user_id'
  | 'token'
  | 'forwarding_url'
  | 'verify_scheme'
  | 'signing_secret'
  | 'previous_signing_secret'
  | 'previous_secret_expires_at'
  | 'signature_header'
>;

// A safety net only: changes are pushed through the bus at once.
const TTL_MS = 60_000;

/**
 * Endpoint look-ups by token, cached. The dashboard publishes `endpoint_changed` with the
 * token after every change; on PostgreSQL that reaches every instance, and a lost bus
 * connection empties the cache because messages may have been missed.
 */
export class EndpointCache {
  private readonly entries = new Map<string, { target: CaptureTarget; expires: number }>();
  private readonly loading = new Map<string, Promise<CaptureTarget | null>>();
  private readonly unsubscribe: Array<() => void>;

  constructor(
    private readonly store: Store,
    bus: Bus,
  ) {
    this.unsubscribe = [
      bus.subscribe('endpoint_changed', (token) => this.invalidate(token)),
      bus.onReconnect(() => this.entries.clear()),
    ];
  }

  async get(token: string): Promise<CaptureTarget | null> {
    const hit = this.entries.get(token);
    if (hit && hit.expires > Date.now()) return hit.target;
    const pending = this.loading.get(token);
    if (pending) return pending;
    const load = this.load(token).finally(() => this.loading.delete(token));
    this.loading.set(token, load);
    return load;
  }

  invalidate(token: string): void {
    this.entries.delete(token);
    this.loading.delete(token);
  }

  close(): void {
    for (const off of this.unsubscribe) off();
    this.entries.clear();
  }

  private async load(token: string): Promise<CaptureTarget | null> {
    const row = await findEndpointByToken(this.store, token);
    if (!row) return null;
    const target: CaptureTarget = {
      id: row.id,
      user_id: row.user_id,
      token: row.token,
      forwarding_url: row.forwarding_url,
      verify_scheme: row.verify_scheme,
      signing_secret: row.signing_secret,
      previous_signing_secret: row.previous_signing_secret,
      previous_secret_expires_at: row.previous_secret_expires_at,
      signature_header: row.signature_header,
    };
    // An invalidation that raced this load wins: do not store what may be stale.
    if (this.loading.has(token)) this.entries.set(token, { target, expires: Date.now() + TTL_MS });
    return target;
  }
}
