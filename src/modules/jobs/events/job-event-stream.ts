// Streams one job's events to one client: the stored events after a cursor, then each new event
// as it is committed, until the job is over. New events arrive as a wake-up from the shared
// listener (event-hub.ts); the stream then reads every row after the last id it sent, so a
// wake-up that carries several events, or one that comes late, loses nothing. Writes wait for
// the socket to drain, so a slow client holds back its own stream and nothing else.
import type { Writable } from 'node:stream';
import type { Database } from '../../../db/database.ts';
import type { JobEventHub } from './event-hub.ts';
import { toJobEventView } from './event-view.ts';
import { type JobStreamState, selectJobEventsAfter, selectJobStreamState } from './queries.ts';
import { commentFrame, eventFrame } from './sse-format.ts';

export interface JobEventStreamOptions {
  db: Database;
  hub: JobEventHub;
  logger: { warn(details: object, message: string): void };
  jobId: string;
  /** Send only events with a larger id (0: all). */
  after: number;
  /** Where the frames go (the HTTP response); ended when the stream ends. */
  out: Writable;
  /** A comment line this often; each tick also looks for events a lost notification missed. */
  keepAliveMs: number;
  /** Rows read per query while catching up. */
  pageSize?: number;
}

/**
 * Whether the job is over for a stream that has sent everything up to cursor: it is not active,
 * and either its run's terminal event (completed, failed, archived after the last created or
 * message event) has been sent, or it stopped changing a while ago without one (a worker that
 * died between writing the outcome and its event).
 */
export function jobStreamIsOver(state: JobStreamState | null, cursor: number): boolean {
  if (state === null) return true; // the job is gone
  if (state.status === 'active') return false;
  const ended = state.last_end_id !== null && state.last_end_id > (state.last_start_id ?? 0);
  if (ended) return cursor >= state.last_end_id!;
  return state.idle_seconds > UNANNOUNCED_END_GRACE_SECONDS;
}

/** How long a job may sit finished without its terminal event before a stream gives up waiting. */
export const UNANNOUNCED_END_GRACE_SECONDS = 30;

export class JobEventStream {
  private readonly options: Required<JobEventStreamOptions>;
  private cursor: number;
  private closed = false;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | null = null;
  private resolveDone!: () => void;
  /** Settles when the stream has ended, for whatever reason. */
  readonly done: Promise<void>;

  constructor(options: JobEventStreamOptions) {
    this.options = { pageSize: 500, ...options };
    this.cursor = options.after;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** The id of the last event sent. */
  get lastSentId(): number {
    return this.cursor;
  }

  async start(): Promise<void> {
    const { out, hub, jobId, keepAliveMs } = this.options;
    out.once('close', () => this.close());
    out.once('error', () => this.close());
    // Subscribe before the first read: an event committed in between wakes the stream.
    this.unsubscribe = await hub.subscribe(jobId, () => this.wake());
    if (this.closed) {
      this.unsubscribe();
      return;
    }
    this.keepAlive = setInterval(() => {
      if (this.write(commentFrame('keep-alive'))) this.wake();
    }, keepAliveMs);
    this.wake();
  }

  /** Ends the stream (client gone, server closing, job over). Safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.unsubscribe?.();
    const { out } = this.options;
    if (!out.writableEnded) out.end();
    void (this.pumping ?? Promise.resolve()).finally(() => this.resolveDone());
  }

  private wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: unknown) => {
        this.options.logger.warn({ err: error, jobId: this.options.jobId }, 'job event stream failed');
        this.close();
      })
      .finally(() => {
        this.pumping = null;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    const { db, jobId, pageSize } = this.options;
    for (;;) {
      const rows = await selectJobEventsAfter(db, jobId, this.cursor, pageSize);
      for (const row of rows) {
        if (this.closed) return;
        this.cursor = row.id;
        if (!this.write(eventFrame(toJobEventView(row)))) await this.drained();
      }
      if (rows.length < pageSize) break;
    }
    if (this.closed) return;
    if (jobStreamIsOver(await selectJobStreamState(db, jobId), this.cursor)) this.close();
  }

  /** Writes unless closed; false when closed or when the socket's buffer is full. */
  private write(frame: string): boolean {
    if (this.closed) return false;
    return this.options.out.write(frame);
  }

  private drained(): Promise<void> {
    const { out } = this.options;
    return new Promise((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.once('drain', done);
      out.once('close', done);
    });
  }
}
