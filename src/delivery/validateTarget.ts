import { isPublicAddress, literalAddress } from './addresses.js';

/**
 * Checks a forwarding, replay or alert-webhook URL when the user sets it. Returns a
 * sentence saying what is wrong, or null. Hostnames are resolved and checked again at
 * connect time, since DNS can change between now and then.
 */
export function targetUrlProblem(value: string, allowPrivateTargets: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must use http or https, not ${url.protocol.replace(/:$/, '')}`;
  }
  // Refused rather than dropped in silence: nothing sends them (a request carries the
  // original headers, DESIGN §5), and every attempt would store and show the password.
  if (url.username !== '' || url.password !== '') {
    return 'must not contain a user name or password (user:password@); put a secret in the path or query instead';
  }
  if (allowPrivateTargets) return null;
  const literal = literalAddress(url);
  if (literal !== null && !isPublicAddress(literal)) {
    return `points at a non-public address (${literal}); set HOOKWATCH_ALLOW_PRIVATE_TARGETS=1 to allow private targets`;
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return `points at ${host}, which is always loopback; set HOOKWATCH_ALLOW_PRIVATE_TARGETS=1 to allow private targets`;
  }
  return null;
}
