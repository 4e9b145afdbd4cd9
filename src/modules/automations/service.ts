// Automations as the API sees them: create, read, list, change, delete, and their runs. Firing
// them is intake.ts (events in) and worker.ts (runs into jobs).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  AUTOMATION_CODE_HOSTS,
  type AutomationCreateBody,
  type AutomationLimits,
  type AutomationRunView,
  type AutomationTrigger,
  type AutomationUpdateBody,
  type AutomationView,
  type ErrorDetail,
} from '../../contract/index.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { httpErrors } from '../../errors/request-errors.ts';
import { randomBase62 } from '../../util/random.ts';
import { getProject } from '../projects/index.ts';
import { automationErrors } from './errors.ts';
import {
  type AutomationRow,
  deleteAutomation as deleteAutomationRow,
  insertAutomation,
  type RunRow,
  runExists,
  selectAutomation,
  selectAutomations,
  selectRunPage,
  updateAutomation as updateAutomationRow,
} from './queries.ts';
import { nextDueTime, parseSchedule } from './schedule.ts';

export const DEFAULT_LIMITS: AutomationLimits = {
  maxOpenPullRequests: 3,
  dailyRunCap: 50,
  grouping: false,
  quietPeriodSeconds: 0,
};

const MAX_FILTERS = 50;
const MAX_FILTER_CHARS = 200;

export const newAutomationId = () => `aut_${randomBase62(16)}`;
export const newRunId = () => `run_${randomBase62(16)}`;

/** A trigger secret: dwt_ and 40 base62 characters (about 238 bits), recognisable by scanners. */
function newTriggerSecret(): string {
  return `dwt_${randomBase62(40)}`;
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Whether `given` is the automation's trigger secret; compares hashes in constant time. */
export function triggerSecretMatches(row: AutomationRow, given: string): boolean {
  // Compared even without a stored hash, so the time taken says nothing about the automation.
  const expected = Buffer.from(row.trigger_secret_hash ?? hashOf(randomBytes(16).toString('hex')), 'hex');
  const actual = Buffer.from(hashOf(given), 'hex');
  return timingSafeEqual(expected, actual) && row.trigger_secret_hash !== null;
}

export function toAutomationView(
  row: AutomationRow,
  publicUrl: string,
  triggerSecret?: string,
): AutomationView {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    enabled: row.enabled,
    trigger: row.trigger,
    promptTemplate: row.prompt_template,
    limits: { ...DEFAULT_LIMITS, ...row.limits },
    triggerUrl:
      row.trigger.type === 'webhook'
        ? `${publicUrl.replace(/\/+$/, '')}/v2/automations/${row.project_id}/${row.id}/trigger`
        : null,
    nextRunAt: row.next_run_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(triggerSecret === undefined ? {} : { triggerSecret }),
  };
}

export function toRunView(row: RunRow): AutomationRunView {
  return {
    id: row.id,
    automationId: row.automation_id,
    trigger: row.trigger_type,
    status: row.status,
    jobId: row.job_id,
    // A queued run's started_at and followed_up are the worker's reservation, not yet a start.
    followedUp: row.status === 'started' && row.followed_up,
    skipReason: row.skip_reason,
    sources: row.context.events
      .map((event) => event.url)
      .filter((url): url is string => typeof url === 'string'),
    dueAt: row.due_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    startedAt: row.status === 'started' ? (row.started_at?.toISOString() ?? null) : null,
  };
}

function invalid(field: string, message: string): never {
  const details: ErrorDetail[] = [{ location: 'body', name: field, message }];
  throw automationErrors.invalid_automation(`Field "${field}" ${message}.`, { details });
}

function checkList(field: string, list: string[] | undefined): void {
  if (list === undefined) return;
  if (list.length > MAX_FILTERS) invalid(field, `must hold at most ${MAX_FILTERS} entries`);
  for (const entry of list) {
    if (entry.trim() === '' || entry.length > MAX_FILTER_CHARS) {
      invalid(field, `must hold non-empty entries of at most ${MAX_FILTER_CHARS} characters`);
    }
  }
}

/** The trigger with its defaults filled in; throws invalid_automation naming the field at fault. */
export function normalizeTrigger(trigger: AutomationTrigger): AutomationTrigger {
  const fieldsOf: Record<AutomationTrigger['type'], readonly string[]> = {
    code_change: ['type', 'host', 'repository', 'on', 'branches', 'paths', 'labels'],
    schedule: ['type', 'cron', 'timezone'],
    webhook: ['type'],
    review_comment: ['type', 'mention'],
  };
  for (const key of Object.keys(trigger)) {
    if (!fieldsOf[trigger.type].includes(key)) {
      invalid(`trigger.${key}`, `does not apply to a ${trigger.type} trigger`);
    }
  }
  if (trigger.type === 'webhook') return { type: 'webhook' };
  if (trigger.type === 'review_comment') {
    if (trigger.mention === undefined) return { type: 'review_comment' };
    const mention = trigger.mention.trim();
    if (!/^@?[A-Za-z0-9][A-Za-z0-9_.-]*(\[bot\])?$/.test(mention) || mention.length > MAX_FILTER_CHARS) {
      invalid('trigger.mention', 'must be a handle such as @docwright (letters, digits, _ . -)');
    }
    return { type: 'review_comment', mention: mention.startsWith('@') ? mention : `@${mention}` };
  }
  if (trigger.type === 'schedule') {
    if (trigger.cron === undefined) invalid('trigger.cron', 'is required for a schedule trigger');
    const timezone = trigger.timezone ?? 'UTC';
    const parsed = parseSchedule(trigger.cron, timezone);
    if ('problem' in parsed) {
      const field = /time ?zone/i.test(parsed.problem) ? 'trigger.timezone' : 'trigger.cron';
      invalid(field, `is not valid: ${parsed.problem}`);
    }
    return { type: 'schedule', cron: trigger.cron.trim().split(/\s+/).join(' '), timezone };
  }
  if (trigger.host === undefined || !AUTOMATION_CODE_HOSTS.includes(trigger.host)) {
    invalid('trigger.host', `is required: one of ${AUTOMATION_CODE_HOSTS.join(', ')}`);
  }
  const repository = trigger.repository?.trim().replace(/^\/+|\/+$/g, '') ?? '';
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(repository) || repository.length > MAX_FILTER_CHARS) {
    invalid(
      'trigger.repository',
      'must be the watched repository as owner/name (GitLab: group/subgroup/name)',
    );
  }
  const on = trigger.on ?? 'merged_pull_request';
  const branches = trigger.branches ?? ['main'];
  if (branches.length === 0) invalid('trigger.branches', 'must name at least one branch');
  checkList('trigger.branches', branches);
  checkList('trigger.paths', trigger.paths);
  checkList('trigger.labels', trigger.labels);
  // A push has no labels. (paths work for both: a merged pull request's files are read from the
  // code repository by the worker.)
  if (trigger.labels !== undefined && on !== 'merged_pull_request') {
    invalid('trigger.labels', 'applies only with on: merged_pull_request');
  }
  return {
    type: 'code_change',
    host: trigger.host,
    repository,
    on,
    branches,
    ...(trigger.paths ? { paths: trigger.paths } : {}),
    ...(trigger.labels ? { labels: trigger.labels } : {}),
  };
}

function checkTemplate(template: string): void {
  if (template.trim() === '') invalid('promptTemplate', 'must not be empty or only whitespace');
}

/** When a schedule fires next, seen from `now`; null for other triggers or a disabled automation. */
function nextRunOf(trigger: AutomationTrigger, enabled: boolean, now: Date): Date | null {
  if (trigger.type !== 'schedule' || !enabled) return null;
  return nextDueTime(trigger.cron!, trigger.timezone ?? 'UTC', now);
}

export async function createAutomation(
  db: Database,
  input: { projectId: string; body: AutomationCreateBody; publicUrl: string; now?: Date },
): Promise<AutomationView> {
  const { body } = input;
  const trigger = normalizeTrigger(body.trigger);
  checkTemplate(body.promptTemplate);
  const enabled = body.enabled ?? true;
  const secret = trigger.type === 'webhook' ? newTriggerSecret() : null;
  const project = await getProject(db, input.projectId);
  const row = await insertAutomation(db, {
    id: newAutomationId(),
    projectId: project.id,
    name: body.name.trim() || invalid('name', 'must not be only whitespace'),
    enabled,
    trigger,
    promptTemplate: body.promptTemplate,
    limits: { ...DEFAULT_LIMITS, ...body.limits },
    triggerSecretHash: secret === null ? null : hashOf(secret),
    nextRunAt: nextRunOf(trigger, enabled, input.now ?? new Date()),
  });
  return toAutomationView(row, input.publicUrl, secret ?? undefined);
}

export async function getAutomationRow(db: Queryable, projectId: string, id: string): Promise<AutomationRow> {
  const row = await selectAutomation(db, projectId, id);
  if (!row) throw automationErrors.automation_not_found(`No automation "${id}" in project "${projectId}".`);
  return row;
}

export async function getAutomation(
  db: Queryable,
  projectId: string,
  id: string,
  publicUrl: string,
): Promise<AutomationView> {
  return toAutomationView(await getAutomationRow(db, projectId, id), publicUrl);
}

export async function listAutomations(
  db: Queryable,
  projectId: string,
  publicUrl: string,
): Promise<AutomationView[]> {
  return (await selectAutomations(db, projectId)).map((row) => toAutomationView(row, publicUrl));
}

export async function updateAutomation(
  db: Database,
  input: { projectId: string; id: string; body: AutomationUpdateBody; publicUrl: string; now?: Date },
): Promise<AutomationView> {
  const { body } = input;
  return db.transaction(async (tx) => {
    const current = await getAutomationRow(tx, input.projectId, input.id);
    const trigger = body.trigger === undefined ? current.trigger : normalizeTrigger(body.trigger);
    if (body.promptTemplate !== undefined) checkTemplate(body.promptTemplate);
    const enabled = body.enabled ?? current.enabled;
    let secret: string | null = null;
    let secretHash = trigger.type === 'webhook' ? current.trigger_secret_hash : null;
    if (trigger.type === 'webhook' && (secretHash === null || body.rotateTriggerSecret)) {
      secret = newTriggerSecret();
      secretHash = hashOf(secret);
    } else if (body.rotateTriggerSecret) {
      invalid('rotateTriggerSecret', 'applies only to a webhook trigger');
    }
    const scheduleChanged =
      JSON.stringify(trigger) !== JSON.stringify(current.trigger) || enabled !== current.enabled;
    const row = await updateAutomationRow(tx, {
      id: current.id,
      projectId: current.project_id,
      name:
        body.name === undefined
          ? current.name
          : body.name.trim() || invalid('name', 'must not be only whitespace'),
      enabled,
      trigger,
      promptTemplate: body.promptTemplate ?? current.prompt_template,
      limits: { ...DEFAULT_LIMITS, ...current.limits, ...body.limits },
      triggerSecretHash: secretHash,
      nextRunAt: scheduleChanged ? nextRunOf(trigger, enabled, input.now ?? new Date()) : current.next_run_at,
    });
    return toAutomationView(row!, input.publicUrl, secret ?? undefined);
  });
}

export async function deleteAutomation(db: Queryable, projectId: string, id: string): Promise<void> {
  if (!(await deleteAutomationRow(db, projectId, id))) {
    throw automationErrors.automation_not_found(`No automation "${id}" in project "${projectId}".`);
  }
}

export async function listRuns(
  db: Queryable,
  q: { projectId: string; automationId: string; limit: number; cursor: string | null },
): Promise<{ runs: AutomationRunView[]; nextCursor: string | null }> {
  await getAutomationRow(db, q.projectId, q.automationId);
  const after = q.cursor === null ? null : decodeCursor(q.cursor);
  if (after !== null && !(await runExists(db, q.automationId, after))) throw invalidCursor();
  const rows = await selectRunPage(db, { automationId: q.automationId, after, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    runs: page.map(toRunView),
    nextCursor:
      rows.length > q.limit && last
        ? Buffer.from(JSON.stringify({ after: last.id })).toString('base64url')
        : null,
  };
}

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string' && !parsed.after.includes('\0')) return parsed.after;
  } catch {}
  throw invalidCursor();
}

function invalidCursor() {
  return httpErrors.invalid_parameter(
    'Query parameter "cursor" is not a cursor this server gave out; pass nextCursor from a previous page.',
    { details: [{ location: 'query', name: 'cursor', message: 'unknown cursor' }] },
  );
}
