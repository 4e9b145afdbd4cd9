// Events in: a trigger URL's call, a code host's webhook, a schedule's due time. Intake is one
// short transaction that records the event and queues a run (or adds the event to a run still
// gathering events in its quiet period), then NOTIFY wakes the automation workers at commit.
// Nothing slow happens here, so a code host gets its answer well within its timeout.
import type { AutomationCodeHost } from '../../contract/index.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { exceedsJsonDepth } from '../../util/json-depth.ts';
import { requestCiPoll } from '../jobs/index.ts';
import { readProjectSecret } from '../projects/index.ts';
import { automationErrors } from './errors.ts';
import { readHostCiEvent } from './hosts/ci-event.ts';
import type { CodeChangeEvent, ReadDelivery } from './hosts/code-change-event.ts';
import { readGitea, verifyGitea } from './hosts/gitea.ts';
import { readGitHub, verifyGitHub } from './hosts/github.ts';
import { readGitLab, verifyGitLab } from './hosts/gitlab.ts';
import { readHostComment } from './hosts/review-comment-hosts.ts';
import {
  type AutomationRow,
  appendRunEvent,
  deleteRunRow,
  insertDeliveryRuns,
  insertEventKey,
  insertInboundDelivery,
  insertRun,
  notifyRunQueued,
  selectAutomation,
  selectAutomationForUpdate,
  selectCodeChangeAutomations,
  selectEventKeyRun,
  selectGatheringRun,
} from './queries.ts';
import { receiveReviewComment } from './review-comment.ts';
import { newRunId, triggerSecretMatches } from './service.ts';

/**
 * Queues a run of `automation` for `event`, or adds the event to the run gathering events in the
 * automation's quiet period. `key` names the event: one already seen queues nothing and gives
 * the run it made. Runs in the caller's transaction.
 */
export async function queueEvent(
  tx: Queryable,
  automation: AutomationRow,
  event: Record<string, unknown>,
  key: string | null,
  now: Date,
): Promise<{ runId: string; duplicate: boolean }> {
  // PostgreSQL's jsonb cannot hold a NUL; a code host's payload may carry one in a title or body.
  const clean = withoutNul(event);
  const quietMs = (automation.limits.quietPeriodSeconds ?? 0) * 1000;
  const dueAt = new Date(now.getTime() + quietMs);
  if (key !== null) {
    const seen = await selectEventKeyRun(tx, automation.id, key);
    if (seen !== null) return { runId: seen, duplicate: true };
  }
  if (quietMs > 0) {
    // Gathering serialises intake per automation, so two events never open two gathering runs.
    await selectAutomationForUpdate(tx, automation.id);
    const gathering = await selectGatheringRun(tx, automation.id, now);
    if (gathering !== null) {
      if (key !== null) await insertEventKey(tx, automation.id, key, gathering.id);
      await appendRunEvent(tx, gathering.id, clean, dueAt);
      return { runId: gathering.id, duplicate: false };
    }
  }
  const run = await insertRun(tx, {
    id: newRunId(),
    automationId: automation.id,
    projectId: automation.project_id,
    triggerType: automation.trigger.type,
    context: { events: [clean] },
    dueAt,
  });
  // Without a lock, two deliveries of one event may both get here: the key's primary key lets one
  // through (the other waits for it to commit) and the other takes its run back.
  if (key !== null && !(await insertEventKey(tx, automation.id, key, run.id))) {
    await deleteRunRow(tx, run.id);
    return { runId: (await selectEventKeyRun(tx, automation.id, key)) ?? run.id, duplicate: true };
  }
  await notifyRunQueued(tx, run.id);
  return { runId: run.id, duplicate: false };
}

/** POST .../trigger: checks the secret, queues a run with the body as {{event.body}}. */
export async function triggerAutomation(
  db: Database,
  input: {
    projectId: string;
    automationId: string;
    secret: string | null;
    body: unknown;
    idempotencyKey: string | null;
    now?: Date;
  },
): Promise<{ runId: string; duplicate: boolean }> {
  const row = await selectAutomation(db, input.projectId, input.automationId);
  const authorised =
    row !== null &&
    row.trigger.type === 'webhook' &&
    input.secret !== null &&
    triggerSecretMatches(row, input.secret);
  if (!authorised) {
    throw automationErrors.trigger_unauthorized(
      'Send the automation\'s trigger secret as "Authorization: Bearer dwt_..."; it is missing or wrong, or the automation has no webhook trigger.',
      { headers: { 'www-authenticate': 'Bearer realm="docwright-automation-trigger"' } },
    );
  }
  if (!row.enabled)
    throw automationErrors.automation_disabled('The automation is disabled; enable it to start runs.');
  if (exceedsDepth(input.body)) {
    throw automationErrors.invalid_automation(
      'The trigger body nests arrays and objects more than 16 levels deep; send a flatter body.',
      { details: [{ location: 'body', name: 'body', message: 'nested too deep' }] },
    );
  }
  const event = { type: 'webhook', body: input.body ?? null };
  const key = input.idempotencyKey === null ? null : `idempotency:${input.idempotencyKey}`;
  return db.transaction((tx) => queueEvent(tx, row, event, key, input.now ?? new Date()));
}

function exceedsDepth(value: unknown): boolean {
  // The HTTP layer already refused more than 64 levels; a trigger body gets 16.
  if (exceedsJsonDepth(value)) return true;
  const depth = (v: unknown, level: number): boolean => {
    if (typeof v !== 'object' || v === null) return false;
    if (level > 16) return true;
    return Object.values(v).some((item) => depth(item, level + 1));
  };
  return depth(value, 1);
}

export interface InboundOutcome {
  runs: string[];
  ignored: string | null;
  /** A CI event: the commit and the jobs whose CI watch polls now (docs/ci-follow-up.md). */
  ci?: { sha: string | null; jobs: string[] };
}

/** The project's secret for code-host webhooks, or null when it has none (or the project is unknown). */
async function inboundSecret(db: Queryable, serverKey: Buffer, projectId: string): Promise<string | null> {
  try {
    return await readProjectSecret(db, serverKey, projectId, 'codeHostWebhookSecret');
  } catch {
    return null;
  }
}

/**
 * Opened secrets, kept briefly: a burst of deliveries reads and decrypts the secret once. A
 * delivery that fails with the kept secret is checked again with the stored one, so a new secret
 * works at once; an old one keeps working for at most SECRET_CACHE_MS after it was replaced.
 */
const SECRET_CACHE_MS = 5_000;
const secretCache = new Map<string, { secret: string | null; until: number }>();

async function verifyDelivery(
  db: Queryable,
  serverKey: Buffer,
  input: {
    projectId: string;
    host: AutomationCodeHost;
    headers: Record<string, string | string[] | undefined>;
    rawBody: string;
  },
): Promise<boolean> {
  const check = async (secret: string | null) =>
    secret !== null &&
    (input.host === 'github'
      ? await verifyGitHub(secret, input.rawBody, input.headers)
      : input.host === 'gitlab'
        ? verifyGitLab(secret, input.headers)
        : verifyGitea(secret, input.rawBody, input.headers));
  const kept = secretCache.get(input.projectId);
  if (kept !== undefined && kept.until > Date.now() && (await check(kept.secret))) return true;
  const secret = await inboundSecret(db, serverKey, input.projectId);
  if (secretCache.size > 10_000) secretCache.clear();
  secretCache.set(input.projectId, { secret, until: Date.now() + SECRET_CACHE_MS });
  return check(secret);
}

/**
 * A code host's webhook: verified with the project's codeHostWebhookSecret (401 and nothing
 * queued otherwise), read, recorded by delivery id (a redelivery queues nothing), matched against
 * the project's code_change automations, one run (or gathered event) per match.
 */
export async function receiveCodeHostWebhook(
  db: Database,
  serverKey: Buffer,
  input: {
    projectId: string;
    host: AutomationCodeHost;
    headers: Record<string, string | string[] | undefined>;
    rawBody: string;
    now?: Date;
  },
): Promise<InboundOutcome> {
  const { headers, rawBody } = input;
  if (!(await verifyDelivery(db, serverKey, input))) {
    throw automationErrors.webhook_signature_invalid(
      "The webhook is not signed with this project's codeHostWebhookSecret (or the project has none); nothing was queued.",
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody);
  } catch {
    // Signed but not JSON (GitHub's form encoding): nothing to read, and no reason to fail the hook.
    return { runs: [], ignored: 'the body is not JSON: set the webhook content type to application/json' };
  }
  const now = input.now ?? new Date();
  // CI results (check runs, statuses, pipelines): the CI watch of the commit polls now. Not
  // recorded as a delivery: a redelivery only asks for one more early poll.
  const ci = readHostCiEvent(input.host, headers, payload);
  if (ci !== null) {
    if (ci.ignored !== null) return { runs: [], ignored: ci.ignored, ci: { sha: ci.sha, jobs: [] } };
    const jobs = await requestCiPoll(db, input.projectId, ci.sha);
    return {
      runs: [],
      ignored: jobs.length > 0 ? null : 'no CI watch of this project is watching this commit',
      ci: { sha: ci.sha, jobs },
    };
  }
  // Comments on pull requests: the review_comment trigger's (review-comment.ts).
  const comment = readHostComment(input.host, headers, payload);
  if (comment !== null) {
    return receiveReviewComment(
      db,
      { projectId: input.projectId, host: input.host, ...comment, now },
      queueEvent,
    );
  }
  const read: ReadDelivery =
    input.host === 'github'
      ? readGitHub(headers, payload)
      : input.host === 'gitlab'
        ? readGitLab(headers, payload)
        : readGitea(headers, payload);
  const redelivery = { runs: [], ignored: 'a redelivery of a delivery already received' };
  if (read.event === null) {
    if (
      read.deliveryId !== null &&
      !(await insertInboundDelivery(db, input.projectId, input.host, read.deliveryId))
    ) {
      return redelivery;
    }
    return { runs: [], ignored: read.ignored };
  }
  const event = read.event;
  const watching = (await selectCodeChangeAutomations(db, input.projectId, input.host)).filter((automation) =>
    watches(automation, event),
  );
  // One run per change, however many deliveries tell of it.
  const key = `${event.kind}:${event.repository.toLowerCase()}:${event.branch}:${event.mergedCommit}`;
  const outcome = (runs: string[]): InboundOutcome => ({
    runs,
    ignored: runs.length === 0 ? 'no automation watches this change (or it was already received)' : null,
  });
  if (watching.some((automation) => (automation.limits.quietPeriodSeconds ?? 0) > 0)) {
    // A quiet period gathers events into a run under the automation's lock: a transaction.
    return db.transaction(async (tx) => {
      if (
        read.deliveryId !== null &&
        !(await insertInboundDelivery(tx, input.projectId, input.host, read.deliveryId))
      ) {
        return redelivery;
      }
      const runs: string[] = [];
      for (const automation of watching) {
        const queued = await queueEvent(tx, automation, event, key, now);
        if (!queued.duplicate) runs.push(queued.runId);
      }
      return outcome(runs);
    });
  }
  // Otherwise one statement records the delivery id, the keys and the runs (see the performance
  // notes in docs/automations.md): committed before the answer, one commit per delivery.
  const queued = await insertDeliveryRuns(db, {
    projectId: input.projectId,
    host: input.host,
    deliveryId: read.deliveryId,
    automationIds: watching.map((automation) => automation.id),
    keys: watching.map(() => key),
    runIds: watching.map(() => newRunId()),
    context: JSON.stringify({ events: [event] }, withoutNulChars),
    dueAt: now,
  });
  if (!queued.fresh) return redelivery;
  if (queued.runs.length > 0) wakeWorkers(db, queued.runs[0]!);
  return outcome(queued.runs);
}

/**
 * NOTIFY after the commit, coalesced: while one is on its way, the deliveries committed meanwhile
 * share one more, sent when it returns (their runs are committed before it is sent, so a worker
 * woken by it sees them). Not awaited: the runs are already durable, and a lost NOTIFY only
 * leaves them to the workers' poll.
 */
const wakes = new WeakMap<Database, { sending: boolean; again: boolean }>();

function wakeWorkers(db: Database, runId: string): void {
  let state = wakes.get(db);
  if (state === undefined) {
    state = { sending: false, again: false };
    wakes.set(db, state);
  }
  if (state.sending) {
    state.again = true;
    return;
  }
  const wake = state;
  wake.sending = true;
  const send = (id: string): void => {
    notifyRunQueued(db, id)
      .catch(() => {})
      .finally(() => {
        if (wake.again) {
          wake.again = false;
          send(id);
        } else wake.sending = false;
      });
  };
  send(runId);
}

/** Whether a code_change automation's trigger matches the event (repository, branch, kind, filters). */
export function watches(automation: AutomationRow, event: CodeChangeEvent): boolean {
  const trigger = automation.trigger;
  if (trigger.type !== 'code_change') return false;
  if ((trigger.repository ?? '').toLowerCase() !== event.repository.toLowerCase()) return false;
  if ((trigger.on ?? 'merged_pull_request') !== event.kind) return false;
  if (!(trigger.branches ?? ['main']).includes(event.branch)) return false;
  if (trigger.labels && !trigger.labels.some((label) => event.labels.includes(label))) return false;
  // A merged pull request's webhook names no files: its paths are checked by the worker, once
  // it has read the change from the code repository (code-change-runs.ts).
  if (trigger.paths && event.kind === 'push') {
    const prefixes = trigger.paths.map((p) => p.replace(/\*+$/, ''));
    if (!event.changedFiles.some((file) => prefixes.some((prefix) => file.startsWith(prefix)))) return false;
  }
  return true;
}

/** PostgreSQL's jsonb cannot hold a NUL: a JSON.stringify replacer that drops them from strings. */
const withoutNulChars = (_key: string, value: unknown): unknown =>
  typeof value === 'string' ? value.replaceAll('\0', '') : value;

function withoutNul(event: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(event, withoutNulChars)) as Record<string, unknown>;
}
