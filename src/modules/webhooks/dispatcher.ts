// Sends webhook deliveries and retries them with backoff. Runs inside `docwright serve` and
// `docwright worker`; any number of dispatchers, in any number of processes, can share one
// database: each claims due rows with FOR UPDATE SKIP LOCKED and a lease, so a delivery is sent
// by one dispatcher at a time, and one whose dispatcher died is sent again after the lease.
// Deliveries live in the database from the moment their event is committed: stopping (or
// killing) a dispatcher loses none.
//
// Wake-ups: a NOTIFY on 'docwright_webhooks' (sent by the trigger that creates a delivery) starts
// work at once; a timer set to the next retry's due time handles retries, and a slow poll
// catches what a notification cannot (leases of dead dispatchers).
import type { Database } from '../../db/database.ts';
import { WorkLoop } from '../../runtime/index.ts';
import type { Logger } from '../../util/logger.ts';
import { readProjectSecret } from '../projects/index.ts';
import { DEFAULT_RETRY_DELAYS_MS, nextRetryDelayMs } from './backoff.ts';
import { webhookPayload } from './payload.ts';
import {
  claimDueDeliveries,
  type DeliveryRow,
  recordAttempt,
  selectNextDueTime,
  selectWebhookUrl,
} from './queries.ts';
import { postWebhook, type SendResult } from './send.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

export const WEBHOOKS_CHANNEL = 'docwright_webhooks';

export interface WebhookDispatcherOptions {
  db: Database;
  /** The server key that opens the projects' sealed webhookSecret. */
  serverKey: Buffer;
  logger: Logger;
  /** Let deliveries reach loopback and private addresses (DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivateAddresses: boolean;
  /** Per request (default 10 s). */
  timeoutMs?: number;
  /** Delays between attempts; attempts = delays + 1 (default: 6 attempts over about an hour). */
  retryDelaysMs?: readonly number[];
  /** How long a claim lasts (default: the timeout plus 50 s). */
  leaseMs?: number;
  /** Deliveries sent at once by this dispatcher. */
  concurrency?: number;
  /** Fallback look for due deliveries. */
  pollIntervalMs?: number;
}

export class WebhookDispatcher {
  private readonly options: Required<WebhookDispatcherOptions>;
  private readonly loop: WorkLoop<DeliveryRow>;

  constructor(options: WebhookDispatcherOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.options = {
      timeoutMs,
      retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
      leaseMs: timeoutMs + 50_000,
      concurrency: 8,
      pollIntervalMs: 30_000,
      ...options,
    };
    const { db, logger, leaseMs } = this.options;
    this.loop = new WorkLoop<DeliveryRow>({
      concurrency: this.options.concurrency,
      pollIntervalMs: this.options.pollIntervalMs,
      notifications: { source: db, channel: WEBHOOKS_CHANNEL },
      claim: (limit) => claimDueDeliveries(db, limit, leaseMs),
      run: (row) => this.attempt(row),
      // The timer is set to the earliest pending retry, or the poll interval if that is sooner.
      untilNextDueMs: async () => {
        const next = await selectNextDueTime(db);
        return next === null ? Number.POSITIVE_INFINITY : next.getTime() - Date.now();
      },
      onClaimError: (error) =>
        logger.error({ err: error }, 'webhook dispatcher could not claim deliveries; retrying later'),
      onRunError: (error, row) =>
        logger.error({ err: error, deliveryId: row.id }, 'webhook attempt failed unexpectedly'),
    });
  }

  /** Attempts a delivery gets before it is given up. */
  get maxAttempts(): number {
    return this.options.retryDelaysMs.length + 1;
  }

  async start(): Promise<void> {
    await this.loop.start();
  }

  /** Stops claiming and waits for the attempts under way (each ends within the timeout). */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Look for due deliveries now. */
  wake(): void {
    this.loop.wake();
  }

  private async attempt(row: DeliveryRow): Promise<void> {
    const { db, logger, serverKey, timeoutMs, allowPrivateAddresses } = this.options;
    const log = logger.child({
      deliveryId: row.id,
      webhook: row.type,
      jobId: row.job_id,
      attempt: row.attempts,
    });
    const url = await selectWebhookUrl(db, row.project_id);
    if (url === null) {
      await this.finish(
        row,
        { ok: false, status: null, error: "the project's webhookUrl was removed", snippet: null },
        true,
      );
      log.warn('webhook dropped: the project has no webhookUrl any more');
      return;
    }
    let secret: string | null;
    try {
      secret = await readProjectSecret(db, serverKey, row.project_id, 'webhookSecret');
    } catch {
      secret = null;
      log.error('the webhookSecret cannot be opened with this server key');
    }
    let result: SendResult;
    if (secret === null) {
      result = {
        ok: false,
        status: null,
        error: 'the project has no webhookSecret: deliveries are signed, so they wait until one is set',
        snippet: null,
      };
    } else {
      const body = JSON.stringify(webhookPayload(row));
      const timestamp = Math.floor(Date.now() / 1000);
      result = await postWebhook(
        url,
        {
          'content-type': 'application/json',
          'user-agent': 'docwright-webhooks/1',
          'docwright-delivery': row.id,
          'docwright-event': row.type,
          [SIGNATURE_HEADER]: signatureHeader(secret, timestamp, body),
        },
        body,
        { timeoutMs, allowPrivateAddresses },
      );
    }
    const outcome = await this.finish(row, result, false);
    const where = hostOf(url);
    if (outcome === 'delivered') log.info({ host: where, status: result.status }, 'webhook delivered');
    else {
      log.warn(
        { host: where, status: result.status, error: result.error, outcome },
        outcome === 'failed' ? 'webhook given up' : 'webhook attempt failed; will retry',
      );
    }
  }

  private async finish(
    row: DeliveryRow,
    result: SendResult,
    final: boolean,
  ): Promise<'delivered' | 'retry' | 'failed' | 'lost'> {
    const retryInMs = result.ok || final ? null : nextRetryDelayMs(row.attempts, this.options.retryDelaysMs);
    const outcome = result.ok ? 'delivered' : retryInMs === null ? 'failed' : 'retry';
    const written = await recordAttempt(this.options.db, {
      id: row.id,
      attempt: row.attempts,
      outcome,
      retryInMs,
      responseStatus: result.status,
      error: result.error,
      snippet: result.snippet,
    });
    return written ? outcome : 'lost';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
}
