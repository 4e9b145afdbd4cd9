// A tiny HTTP server for `docwright worker`, which has no API: GET /metrics only, with the same
// optional bearer token as the API's /metrics. Plain node:http: a worker should not carry the
// whole HTTP stack to answer one route.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DocwrightMetrics } from './registry.ts';
import { metricsTokenAccepted } from './token.ts';

export interface MetricsServer {
  /** http://HOST:PORT, with the real port when the port was 0. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(options: {
  metrics: DocwrightMetrics;
  host: string;
  port: number;
  token: string | null;
}): Promise<MetricsServer> {
  const { metrics, token } = options;
  const server = createServer((request, response) => {
    const json = (status: number, code: string, error: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify({ error, code }));
    };
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      json(404, 'route_not_found', 'A docwright worker serves only GET /metrics.');
      return;
    }
    if (!metricsTokenAccepted(token, request.headers.authorization)) {
      json(
        401,
        'metrics_token_required',
        'This worker protects /metrics: send "Authorization: Bearer <DOCWRIGHT_METRICS_TOKEN>".',
        { 'www-authenticate': 'Bearer realm="docwright-metrics"' },
      );
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        response.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'cache-control': 'no-store',
        });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => json(500, 'internal_error', 'The metrics could not be collected.'),
    );
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
