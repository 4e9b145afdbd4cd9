// Which IP addresses a server-side request to a user's or a visitor's URL must never reach: every
// address in the IANA special-purpose registries (IPv4 and IPv6: loopback, private, link-local and
// cloud metadata, carrier-grade NAT, NAT64 and other translation prefixes, benchmarking,
// documentation, reserved), multicast, broadcast, and IPv6 forms that carry an IPv4 address
// (mapped, compatible, translated), which are judged by that IPv4 address. ipaddr.js keeps the
// registries' ranges; only global unicast addresses pass.
import ipaddr from 'ipaddr.js';

/** Ranges the registries hold that ipaddr.js does not name (yet), and deprecated IPv4 forms. */
const EXTRA_IPV6: [ipaddr.IPv6, number][] = [
  [ipaddr.IPv6.parse('100:0:0:1::'), 64], // RFC 9780 dummy prefix
  [ipaddr.IPv6.parse('::'), 96], // IPv4-compatible (RFC 4291, deprecated): ::127.0.0.1
];

/** True when the address is not a global unicast address (or is not an IP address at all). */
export function isSpecialPurposeAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  // An IPv4-mapped address (::ffff:10.0.0.1) connects to its IPv4 address: judge that one.
  if (v6.isIPv4MappedAddress()) return isSpecialPurposeAddress(v6.toIPv4Address().toString());
  if (EXTRA_IPV6.some((range) => v6.match(range))) return true;
  return v6.range() !== 'unicast';
}
