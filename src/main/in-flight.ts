// At shutdown the HTTP server stops accepting connections and closes the idle ones, but a
// keep-alive connection whose request is still running would stay open after its answer, until
// the client's or server's keep-alive timeout: shutdown would wait seconds for nothing. So the
// requests in flight are tracked, and at shutdown their answers carry "Connection: close".
import type { Server, ServerResponse } from 'node:http';

export function trackRequestsInFlight(server: Server): { closeConnectionsAfterAnswers(): void } {
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_request, response: ServerResponse) => {
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
  });
  return {
    closeConnectionsAfterAnswers() {
      for (const response of inFlight) {
        if (!response.headersSent) response.setHeader('connection', 'close');
      }
    },
  };
}
