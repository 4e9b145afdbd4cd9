// DOCWRIGHT_TRUSTED_PROXIES: the reverse proxies or load balancers in front of docwright. A
// request arriving from one of them is taken to come from the address it names in
// X-Forwarded-For (Fastify's trustProxy, through proxy-addr); from anywhere else the header is
// ignored, since any client can write it. The client address matters for the browser script's
// per-address rate limit, for verifying a crawler by its published IP ranges, and for the
// dashboard's sign-in throttle. There is deliberately no "trust everyone" value: an operator who
// really means it writes 0.0.0.0/0,::/0.
import { isIP } from 'node:net';

/** Names proxy-addr understands for whole address ranges. */
const RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;

export interface TrustedProxies {
  entries: string[];
  problems: string[];
}

export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  if (raw === undefined || raw.trim() === '') return { entries: [], problems: [] };
  const entries = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const bad = entries.filter((entry) => !isTrustedProxyEntry(entry));
  if (bad.length === 0) return { entries, problems: [] };
  return {
    entries: [],
    problems: [
      `DOCWRIGHT_TRUSTED_PROXIES must list IP addresses, address/prefix ranges or ${RANGE_NAMES.join(', ')}, separated by commas; not understood: ${bad.map((b) => `"${b}"`).join(', ')}.`,
    ],
  };
}

function isTrustedProxyEntry(entry: string): boolean {
  if ((RANGE_NAMES as readonly string[]).includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || address === undefined) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}
