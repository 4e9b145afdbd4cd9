// A bound on how long one model call may wait for the provider, as a language-model middleware
// inside the retries (each attempt has its own clock). Without it a provider that accepts the
// connection and then sends nothing holds the job's worker slot until the run's wall-time bound.
//
// What counts as waiting: for a whole answer (generate), the time until the answer is complete,
// which is when its first byte is of use; for a streamed answer, the time until it starts and
// then each gap between two of its parts. Only time spent waiting on the provider counts: a
// stream the caller is slow to read is not cut.
//
// A call that waits too long is aborted (the provider sees the connection close) and fails with
// ModelTimeoutError, which src/models/classify.ts counts as transient, like a 503: the retry
// middleware tries it again. A stream that stalls after its answer began cannot be tried again
// (its beginning was already delivered), so that one reaches the caller.
import type { LanguageModelMiddleware } from 'ai';

type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The server default for DOCWRIGHT_MODEL_TIMEOUT_SECONDS. */
export const DEFAULT_MODEL_TIMEOUT_MS = 300_000;

export class ModelTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, midStream: boolean) {
    const seconds = Math.round(timeoutMs / 100) / 10;
    super(
      midStream
        ? `the streamed answer stopped: nothing more came for ${seconds} s`
        : `no answer came within ${seconds} s`,
    );
    // Not AbortError or TimeoutError: those names mean a cancel or the run's own bound, which
    // callers pass through without retrying.
    this.name = 'ModelTimeoutError';
    this.timeoutMs = timeoutMs;
  }

  static isInstance(error: unknown): error is ModelTimeoutError {
    return error instanceof ModelTimeoutError;
  }
}

export function timeoutMiddleware(timeoutMs: number): LanguageModelMiddleware {
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ model, params }) => {
      const clock = new CallClock(timeoutMs, params.abortSignal);
      try {
        return await clock.wait(model.doGenerate({ ...params, abortSignal: clock.signal }), false);
      } finally {
        clock.stop();
      }
    },
    wrapStream: async ({ model, params }) => {
      const clock = new CallClock(timeoutMs, params.abortSignal);
      let result: StreamResult;
      try {
        result = await clock.wait(model.doStream({ ...params, abortSignal: clock.signal }), false);
      } catch (error) {
        clock.stop();
        throw error;
      }
      const reader = result.stream.getReader();
      const stream = new ReadableStream<StreamPart>({
        async pull(controller) {
          try {
            const next = await clock.wait(reader.read(), true);
            if (next.done) {
              clock.stop();
              controller.close();
            } else controller.enqueue(next.value);
          } catch (error) {
            clock.stop();
            if (!ModelTimeoutError.isInstance(error)) {
              controller.error(error);
              return;
            }
            // As providers report trouble in the middle of a stream: an error part, then the end.
            reader.cancel(error).catch(() => {});
            controller.enqueue({ type: 'error', error });
            controller.close();
          }
        },
        async cancel(reason) {
          clock.stop();
          await reader.cancel(reason);
        },
      });
      return { ...result, stream };
    },
  };
}

/**
 * One call's clock: wait() races a step of the call against timeoutMs; when the time runs out it
 * aborts the call's request and the step fails with ModelTimeoutError. The caller's own abort
 * (cancel, wall time) goes through unchanged.
 */
class CallClock {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.timeoutMs = timeoutMs;
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, this.controller.signal])
      : this.controller.signal;
  }

  async wait<T>(step: PromiseLike<T>, midStream: boolean): Promise<T> {
    let expired: (error: ModelTimeoutError) => void = () => {};
    const timeout = new Promise<never>((_resolve, reject) => {
      expired = reject;
    });
    this.timer = setTimeout(() => {
      const error = new ModelTimeoutError(this.timeoutMs, midStream);
      this.controller.abort(error);
      expired(error);
    }, this.timeoutMs);
    try {
      return await Promise.race([step, timeout]);
    } finally {
      clearTimeout(this.timer);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
