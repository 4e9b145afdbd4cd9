// Webhook URLs are set by project admins, but the server sends the requests from inside the
// operator's network: without a guard, a webhook could reach the database, a cloud metadata
// service or an internal admin page (SSRF). So the address actually connected to is checked,
// after DNS resolution and at connect time (a name that resolves to a public address when
// checked and to a private one when connecting gets nowhere), unless the operator allows
// private addresses (DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE, e.g. for a receiver on the same network).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const REFUSED = (() => {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8], // "this" network
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ];
  for (const [net, bits] of v4) list.addSubnet(net, bits, 'ipv4');
  const v6: [string, number][] = [
    ['::', 128], // unspecified
    ['::1', 128], // loopback
    ['64:ff9b::', 96], // NAT64: reaches IPv4 addresses, private ones too
    ['fc00::', 7], // unique local
    ['fe80::', 10], // link-local
    ['ff00::', 8], // multicast
  ];
  for (const [net, bits] of v6) list.addSubnet(net, bits, 'ipv6');
  return list;
})();

/** True for loopback, private, link-local and other addresses a webhook must not reach. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (family !== 6) return false;
  // BlockList also checks IPv4-mapped IPv6 addresses (::ffff:7f00:1) against the IPv4 rules.
  return REFUSED.check(address, 'ipv6');
}

export class AddressRefusedError extends Error {
  constructor(host: string, address: string) {
    const what = host === address ? host : `${host} resolves to ${address}, which`;
    super(
      `${what} is a loopback, private or link-local address; webhooks are not sent there unless DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE=true`,
    );
    this.name = 'AddressRefusedError';
  }
}

/** Throws when the URL's host is an IP literal that must not be reached. */
export function checkLiteralHost(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && isRefusedAddress(host)) throw new AddressRefusedError(host, host);
}

/**
 * A lookup for http.request that resolves as usual and fails when any address is refused. Node
 * calls it with all: true (happy eyeballs) or without; both answers are given.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    const refused = addresses.find((a) => isRefusedAddress(a.address));
    if (refused || addresses.length === 0) {
      callback(new AddressRefusedError(hostname, refused?.address ?? 'nothing'), '', 0);
      return;
    }
    if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
