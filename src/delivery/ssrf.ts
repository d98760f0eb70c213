import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { isPublicAddress, literalAddress } from './addresses.js';

/**
 * The SSRF guard (DESIGN §5) for every outbound request: forwarding, replay and alert
 * webhooks. Two checks, because Node skips the DNS lookup for an IP-literal host:
 * - a literal address is checked before connecting (`checkTargetUrl`, and again in the
 *   agent's connector);
 * - a hostname is resolved inside the socket's own `lookup`, and the socket connects to
 *   exactly the addresses that were checked, so a DNS answer that changes between a
 *   check and the connect (DNS rebinding) cannot slip a private address through.
 */

export const BLOCKED_CODE = 'HOOKWATCH_BLOCKED_TARGET';

export class BlockedTargetError extends Error {
  readonly code = BLOCKED_CODE;
  constructor(host: string, address: string) {
    super(blockedText(host, address));
    this.name = 'BlockedTargetError';
  }
}

function blockedText(host: string, address: string): string {
  return (
    `blocked: ${host} resolves to a private address (${address}); ` +
    'private targets are refused unless HOOKWATCH_ALLOW_PRIVATE_TARGETS=1'
  );
}

/**
 * The pre-connect check of a URL about to be requested: http(s) only, and a literal
 * address must be public. Returns the error text for the attempt, or null. Hostnames
 * pass here and are checked at connect time.
 */
export function checkTargetUrl(url: string, allowPrivateTargets: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `invalid URL: ${url}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `blocked: only http and https URLs are requested, not ${parsed.protocol.replace(/:$/, '')}`;
  }
  if (allowPrivateTargets) return null;
  const literal = literalAddress(parsed);
  if (literal !== null && !isPublicAddress(literal)) return blockedText(parsed.hostname, literal);
  return null;
}

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * A `net.connect` lookup that refuses non-public answers. Every address of the answer
 * must be public: a name that mixes public and private addresses is refused as a whole
 * rather than trusted to connect to the right one.
 */
export function guardedLookup(resolve: LookupFunction = dns.lookup): LookupFunction {
  return (hostname, options, callback: LookupCallback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = (Array.isArray(addresses) ? addresses : []) as dns.LookupAddress[];
      const blocked = list.find((a) => !isPublicAddress(a.address));
      if (blocked) {
        callback(new BlockedTargetError(hostname, blocked.address), '', 0);
        return;
      }
      if (list.length === 0) {
        const none = Object.assign(new Error(`DNS lookup found no address for ${hostname}`), {
          code: 'ENOTFOUND',
        });
        callback(none, '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      } else {
        callback(null, list[0]!.address, list[0]!.family);
      }
    });
  };
}

export interface GuardedAgentOptions {
  /** HOOKWATCH_ALLOW_PRIVATE_TARGETS: lifts the guard (tests, self-hosted setups). */
  allowPrivateTargets: boolean;
  /** Default 10 000 ms (DESIGN §5). */
  connectTimeoutMs?: number;
  /** The resolver; the system's `dns.lookup` unless a test brings its own DNS. */
  lookup?: LookupFunction;
}

/**
 * An undici Agent whose every connection goes through the guard. Redirects are never
 * followed by a bare Agent, so a 3xx to a private address is only ever a response.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const timeout = options.connectTimeoutMs ?? 10_000;
  if (options.allowPrivateTargets) {
    return new Agent({
      connect: options.lookup ? { timeout, lookup: options.lookup } : { timeout },
    });
  }
  const connector = buildConnector({ timeout, lookup: guardedLookup(options.lookup) });
  return new Agent({
    connect: (connectOptions, callback) => {
      const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
      // Node connects to a literal without calling `lookup`: check it here.
      if (ipaddr.isValid(host) && !isPublicAddress(host)) {
        callback(new BlockedTargetError(host, host), null);
        return;
      }
      connector(connectOptions, callback);
    },
  });
}
