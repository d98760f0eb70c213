import ipaddr from 'ipaddr.js';

/**
 * Whether an address may be the target of an outbound request (forwarding, replay,
 * alert webhooks). Only globally routable unicast passes: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), CGNAT, multicast, unspecified,
 * reserved and documentation ranges are refused, in IPv4, IPv6 and IPv4-mapped forms.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    const range = v6.range();
    // NAT64 (64:ff9b::/96) and 6to4 embed an IPv4 address that may itself be private.
    if (range === 'rfc6052' || range === '6to4' || range === 'teredo') return false;
    return range === 'unicast';
  }
  return (parsed as ipaddr.IPv4).range() === 'unicast';
}

/** The host of a URL as an IP literal, after WHATWG normalisation; null for a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) && (ipaddr.IPv4.isValidFourPartDecimal(host) || host.includes(':'))
    ? host
    : null;
}
