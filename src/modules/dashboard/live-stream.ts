// A server-sent-event stream for the dashboard's live pages: it watches a few jobs through the
// jobs module's event hub (one LISTEN per process, shared with the API's event streams) and, each
// time one of them has a new event, sends that job's current state rendered as the page renders
// it. The browser swaps the HTML in; it never builds markup itself.
import type { Writable } from 'node:stream';
import type { JobEventHub } from '../jobs/index.ts';

export interface LiveFrame {
  /** Sent as the SSE id (a reconnecting browser sends it back as Last-Event-ID). */
  id?: number;
  data: object;
  /** The job will not change any more for this page: stop watching it. */
  over: boolean;
}

export interface LiveStreamOptions {
  hub: JobEventHub;
  jobIds: readonly string[];
  out: Writable;
  /** The frame for a job now, or null when there is nothing new to send. */
  render(jobId: string): Promise<LiveFrame | null>;
  logger: { warn(details: object, message: string): void };
  /** A comment this often keeps proxies from closing the stream; each tick also re-reads (a lost notification costs at most this long). */
  keepAliveMs: number;
}

export class LiveJobsStream {
  private readonly options: LiveStreamOptions;
  private readonly watching: Set<string>;
  private readonly pending = new Set<string>();
  private readonly unsubscribes: (() => void)[] = [];
  private pumping: Promise<void> | null = null;
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;
  private resolveDone!: () => void;
  readonly done: Promise<void>;

  constructor(options: LiveStreamOptions) {
    this.options = options;
    this.watching = new Set(options.jobIds);
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  async start(): Promise<void> {
    const { out, hub, keepAliveMs } = this.options;
    out.once('close', () => this.close());
    out.once('error', () => this.close());
    // Subscribe before the first read, so an event committed in between still wakes the stream.
    for (const id of this.watching) {
      this.unsubscribes.push(await hub.subscribe(id, () => this.wake([id])));
      if (this.closed) return this.close();
    }
    this.keepAlive = setInterval(() => {
      if (this.write(': keep-alive\n\n')) this.wake([...this.watching]);
    }, keepAliveMs);
    this.wake([...this.watching]);
  }

  close(): void {
    if (this.closed) {
      this.resolveDoneLater();
      return;
    }
    this.closed = true;
    clearInterval(this.keepAlive);
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    if (!this.options.out.writableEnded) this.options.out.end();
    this.resolveDoneLater();
  }

  private resolveDoneLater(): void {
    void (this.pumping ?? Promise.resolve()).finally(() => this.resolveDone());
  }

  private wake(ids: string[]): void {
    if (this.closed) return;
    for (const id of ids) if (this.watching.has(id)) this.pending.add(id);
    if (this.pumping) return;
    this.pumping = this.pump()
      .catch((error: unknown) => {
        this.options.logger.warn({ err: error }, 'dashboard live stream failed');
        this.close();
      })
      .finally(() => {
        this.pumping = null;
        if (this.pending.size > 0) this.wake([]);
      });
  }

  private async pump(): Promise<void> {
    while (this.pending.size > 0 && !this.closed) {
      const id = this.pending.values().next().value as string;
      this.pending.delete(id);
      const frame = await this.options.render(id);
      if (this.closed) return;
      if (frame) {
        const idLine = frame.id !== undefined ? `id: ${frame.id}\n` : '';
        this.write(`${idLine}event: job\ndata: ${JSON.stringify(frame.data)}\n\n`);
        if (frame.over) this.watching.delete(id);
      }
    }
    if (this.watching.size === 0 && !this.closed) {
      // Tells the page to stop: otherwise EventSource would reconnect when the connection ends.
      this.write('event: end\ndata: {}\n\n');
      this.close();
    }
  }

  private write(text: string): boolean {
    if (this.closed) return false;
    this.options.out.write(text);
    return true;
  }
}
