import ipaddr from 'ipaddr.js';

// Where the platform may send a request on a builder's word (a webhook endpoint): only to the
// public internet. ipaddr.js names each address's range; anything but plain `unicast` is refused:
// private, loopback, link-local (cloud metadata at 169.254.169.254), unique-local, CGNAT, multicast,
// broadcast, unspecified, reserved and documentation ranges, and the IPv6 forms that carry an IPv4
// address inside (IPv4-mapped ::ffff:a.b.c.d is unwrapped first; NAT64, 6to4, Teredo are refused).

/** True when `address` (an IP literal) is an ordinary public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:127.0.0.1 into 127.0.0.1, so a mapped address is judged as what it reaches.
  return ipaddr.process(address).range() === 'unicast';
}

/** An address literal in a URL's host (`[::1]` for IPv6), or null for a name. */
export function addressLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}
