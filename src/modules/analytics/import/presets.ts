// Field mappings for JSON logs of common hosts, chosen with --preset and refined with --map.
// Each was written from the host's published field list (see docs/log-import.md for links).
import type { FieldMap } from './json-format.ts';

export const PRESETS: Record<string, { description: string; map: FieldMap }> = {
  cloudflare: {
    description: 'Cloudflare Logpush, http_requests dataset',
    map: {
      timestamp: 'EdgeStartTimestamp',
      path: 'ClientRequestURI',
      method: 'ClientRequestMethod',
      status: 'EdgeResponseStatus',
      userAgent: 'ClientRequestUserAgent',
      ip: 'ClientIP',
      referrer: 'ClientRequestReferer',
    },
  },
  vercel: {
    description: 'Vercel log drains (JSON/NDJSON), request fields under "proxy"',
    map: {
      timestamp: 'proxy.timestamp',
      path: 'proxy.path',
      method: 'proxy.method',
      status: 'proxy.statusCode',
      userAgent: 'proxy.userAgent',
      ip: 'proxy.clientIp',
      referrer: 'proxy.referer',
    },
  },
  cloudfront: {
    description: 'Amazon CloudFront standard logs delivered as JSON',
    map: {
      timestamp: 'date+time',
      path: 'cs-uri-stem',
      method: 'cs-method',
      status: 'sc-status',
      userAgent: 'cs(User-Agent)',
      ip: 'c-ip',
      referrer: 'cs(Referer)',
    },
  },
};
