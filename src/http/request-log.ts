// Fastify's line per incoming and per answered request, at debug rather than its info: with the
// default LOG_LEVEL=info they would scroll the first-start key off the terminal that shows it
// once, and a reverse proxy usually keeps an access log anyway. Everything else Fastify logs
// (a request that errored, a broken stream) keeps its level; the error handler logs failures.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class DebugRequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    if (this.isLogDisabled(request)) return;
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
