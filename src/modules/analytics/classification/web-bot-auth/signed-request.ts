// Reads, from a request record, the parts RFC 9421 components are derived from. The record's
// `url` (when absolute) gives scheme, authority, path and query as the client sent them;
// otherwise the path comes from `path`/`url` and the authority from the Host header.

import type { RequestRecord } from '../types.ts';
import type { SignedRequest } from './signature-base.ts';

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

export function lowerCaseHeaders(headers: Record<string, string> | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (!headers) return map;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') map.set(name.toLowerCase(), value);
  }
  return map;
}

function authorityOf(host: string, scheme: string | null): string {
  const lower = host.trim().toLowerCase();
  const match = /^(.*):(\d+)$/.exec(lower);
  if (match && scheme && DEFAULT_PORTS[scheme] === match[2]) return match[1]!;
  return lower;
}

export function signedRequestOf(record: RequestRecord, headers: Map<string, string>): SignedRequest {
  const method = (record.method ?? 'GET').toUpperCase();
  const target = record.url ?? record.path ?? '/';
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      const scheme = url.protocol.slice(0, -1);
      return {
        method,
        scheme,
        authority: authorityOf(url.host, scheme),
        path: url.pathname,
        query: url.search === '' ? (target.includes('?') ? '' : null) : url.search.slice(1),
        headers,
      };
    } catch {
      // fall through: treated as a relative target
    }
  }
  const hashAt = target.indexOf('#');
  const withoutFragment = hashAt === -1 ? target : target.slice(0, hashAt);
  const queryAt = withoutFragment.indexOf('?');
  const scheme = headers.get('x-forwarded-proto')?.trim().toLowerCase() ?? null;
  const host = headers.get('host') ?? headers.get(':authority');
  return {
    method,
    scheme,
    authority: host === undefined ? null : authorityOf(host, scheme),
    path: queryAt === -1 ? withoutFragment : withoutFragment.slice(0, queryAt),
    query: queryAt === -1 ? null : withoutFragment.slice(queryAt + 1),
    headers,
  };
}
