// The DNS lookup the outbound requests connect through: it resolves as usual and fails when any
// answer is a special-purpose address, so the address checked is the address the socket connects
// to (no window between a check and a later, different resolution: DNS rebinding). Node calls it
// with all: true (happy eyeballs) or without; both answers are given.
import dns, { type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefused, type OutboundPolicy } from './policy.ts';
import { isSpecialPurposeAddress } from './special-addresses.ts';

export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    // Read at call time (not imported by name), so a test can stand in for the resolver.
    dns.lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = addresses.find((a) => isSpecialPurposeAddress(a.address));
      if (refused || addresses.length === 0) {
        callback(addressRefused(policy, hostname, refused?.address ?? 'nothing'), '', 0);
        return;
      }
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Resolves the host (or takes the IP literal) and throws when any address is refused. */
export async function resolveAllowed(host: string, policy: OutboundPolicy): Promise<string[]> {
  if (isIP(host) !== 0) {
    if (isSpecialPurposeAddress(host)) throw addressRefused(policy, host, host);
    return [host];
  }
  const lookup = guardedLookup(policy);
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve((addresses as unknown as LookupAddress[]).map((a) => a.address));
    });
  });
}
