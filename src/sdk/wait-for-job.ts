// waitForJob: resolves with the job once its status is completed, archived or failed. It polls
// GET .../job/{id} with growing, jittered delays, or, given onEvent, follows the job's event stream
// until the server ends it and then reads the job (falling back to polling on a server without
// the stream).
// Rate limits and overload (429, 503) are waited out as long as their Retry-After says; other
// client errors (404, 401...) end the wait at once.

import { isFinalStatus } from '../contract/job-statuses.ts';
import { DocwrightError, DocwrightNetworkError, DocwrightTimeoutError } from './errors.ts';
import { type StreamJobEventsOptions, streamJobEvents } from './job-events.ts';
import { backoff, childController, sleep } from './timing.ts';
import type { Transport } from './transport.ts';
import type { Job, JobEvent } from './types.ts';

export interface WaitForJobOptions {
  /** Give up after this long (ms) with a DocwrightTimeoutError; default: wait as long as it takes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each of the job's events (from the event stream), oldest first. */
  onEvent?: (event: JobEvent) => void;
  /** Called with the job each time it is read. */
  onPoll?: (job: Job) => void;
  /** First delay between polls (ms, default 1000); later ones grow to maxPollIntervalMs. */
  pollIntervalMs?: number;
  /** Longest delay between polls (ms, default 15000). */
  maxPollIntervalMs?: number;
  /** Failed reads in a row (network errors, 5xx without Retry-After) before giving up (default 5). */
  maxConsecutiveErrors?: number;
  /** Passed to the event stream when onEvent is given. */
  stream?: Pick<StreamJobEventsOptions, 'maxReconnects' | 'reconnectMs'>;
}

export async function waitForJob(
  transport: Transport,
  getJob: (signal: AbortSignal) => Promise<Job>,
  ids: { projectId: string; jobId: string },
  options: WaitForJobOptions = {},
): Promise<Job> {
  const { controller, release } = childController(options.signal);
  const signal = controller.signal;
  let lastJob: Job | null = null;
  const timeoutMs = options.timeoutMs;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          controller.abort(
            new DocwrightTimeoutError(
              `Job ${ids.jobId} did not finish within ${timeoutMs} ms (last status: ${lastJob?.status ?? 'unknown'}).`,
              { timeoutMs, lastJob, jobId: ids.jobId },
            ),
          );
        }, timeoutMs);
  const delays = backoff(options.pollIntervalMs ?? 1000, options.maxPollIntervalMs ?? 15_000);
  const maxErrors = options.maxConsecutiveErrors ?? 5;
  let errors = 0;

  /** Reads the job; on a transient failure waits and returns null. */
  const read = async (): Promise<Job | null> => {
    try {
      const job = await getJob(signal);
      errors = 0;
      lastJob = job;
      options.onPoll?.(job);
      return job;
    } catch (error) {
      const wait = transientWait(error, signal);
      if (wait === null || ++errors > maxErrors) throw error;
      await sleep(Math.max(wait ?? 0, delays.next()), signal);
      return null;
    }
  };

  try {
    let useStream = options.onEvent !== undefined;
    // The id of the last event handed to onEvent: each follow resumes after it.
    const cursor = { lastEventId: undefined as number | undefined };
    let job = await read();
    for (;;) {
      if (job !== null && isFinalStatus(job.status) && !useStream) return job;
      // With onEvent the stream is followed also for a job that is already over, so the caller
      // sees its events whether the run ended before or after this call.
      if (useStream) {
        try {
          await followUntilOver(transport, ids, options, signal, cursor);
        } catch (error) {
          // A server without the event stream: poll instead.
          if (error instanceof DocwrightError && error.code === 'route_not_found') useStream = false;
          else if (transientWait(error, signal) === null) throw error;
          // Transient stream trouble: read the job, then follow again from the cursor.
        }
        job = await read();
        if (job !== null && isFinalStatus(job.status)) return job;
        continue;
      }
      if (job !== null) await sleep(delays.next(), signal);
      job = await read();
    }
  } catch (error) {
    // Our own timeout, or the caller's abort: fetch and sleep reject with the signal's reason.
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    release();
  }
}

/**
 * Follows the event stream, after the cursor, until it ends: the server ends it once the job is
 * over (its current run's completed or failed event sent, or archived), and then answers 204.
 */
async function followUntilOver(
  transport: Transport,
  ids: { projectId: string; jobId: string },
  options: WaitForJobOptions,
  signal: AbortSignal,
  cursor: { lastEventId: number | undefined },
): Promise<void> {
  const events = streamJobEvents(transport, ids.projectId, ids.jobId, {
    ...options.stream,
    signal,
    ...(cursor.lastEventId === undefined ? {} : { lastEventId: cursor.lastEventId }),
  });
  for await (const event of events) {
    cursor.lastEventId = event.id;
    options.onEvent!(event);
  }
}

/** null when retrying cannot help; else the wait the server asked for (ms), or undefined for a plain backoff. */
function transientWait(error: unknown, signal: AbortSignal): number | undefined | null {
  if (signal.aborted) return null;
  if (error instanceof DocwrightNetworkError) return undefined;
  if (error instanceof DocwrightError && error.retryable) {
    return error.retryAfterSeconds === null ? undefined : error.retryAfterSeconds * 1000;
  }
  return null;
}
