// A page view from the browser script, past HTTP: whether its sender may post it (the address's
// rate limit, the Origin against the project's allowedOrigins), then the record built from the
// body and the request's own user agent and address, classified, and committed through the same
// group commit as the ingest API's views.
import type { Queryable } from '../../../db/database.ts';
import { httpErrors } from '../../../errors/request-errors.ts';
import { hourOf } from '../../../util/time.ts';
import { findProject } from '../../projects/index.ts';
import type { ClassificationContext } from '../classification/context.ts';
import { classifyRecord } from '../classification/pipeline.ts';
import type { GroupCommitWriter } from '../ingest/group-commit.ts';
import type { RecordOutcomes } from '../ingest/ingest-batch.ts';
import { ViewSums, type VisitorSalts } from '../store/index.ts';
import { matchAllowedOrigin } from './origins.ts';
import type { AddressRateLimiter } from './rate-limit.ts';

export interface CollectDependencies {
  db: Queryable;
  classification: ClassificationContext;
  limiter: AddressRateLimiter;
  writer: GroupCommitWriter;
  /** Milliseconds since the epoch: the view's time. */
  now: () => number;
  /** The day's salt for visitor ids; without it no visitor id is kept. */
  visitorSalts?: VisitorSalts;
  /** Told what became of every view posted (the metrics). */
  onRecords?: (outcomes: RecordOutcomes) => void;
}

/** Whether a browser on this origin may post views: the origin to allow by CORS, or why not. */
export type OriginDecision =
  | { allowed: string }
  | { refused: 'no_origin' }
  | { refused: 'not_allowed'; origin: string };

/** Whether a view may be posted now: as the origin decides, unless the address must wait first. */
export type Admission = OriginDecision | { retryAfterSeconds: number };

export interface Sender {
  projectId: string;
  /** The client's address: the rate limit's key, and the view's address. */
  address: string;
  /** The Origin header; absent when the request did not come from a browser's page. */
  origin: string | undefined;
}

export async function admitView(deps: CollectDependencies, sender: Sender): Promise<Admission> {
  const wait = deps.limiter.take(sender.address);
  if (wait > 0) return { retryAfterSeconds: wait };
  return decideOrigin(deps.db, sender.projectId, sender.origin);
}

/** The origin decision alone (the CORS preflight is not rate limited). */
export async function decideOrigin(
  db: Queryable,
  projectId: string,
  origin: string | undefined,
): Promise<OriginDecision> {
  if (origin === undefined) return { refused: 'no_origin' };
  const project = await findProject(db, projectId);
  const allowed = project === null ? null : matchAllowedOrigin(origin, project.settings.allowedOrigins);
  // Refused the same way whether or not the project exists: no key, so nothing may be revealed.
  return allowed === null ? { refused: 'not_allowed', origin } : { allowed };
}

export interface PageView {
  projectId: string;
  /** The page, as the body gives it: a path, or a whole URL. */
  path?: string | undefined;
  url?: string | undefined;
  address: string;
  userAgent?: string | undefined;
  /** document.referrer and the page's utm_source: only the AI assistant they name is kept. */
  referrer?: string | undefined;
  utmSource?: string | undefined;
}

/** The 202 answer: the view was counted, or dropped for the reason given. */
export type CollectOutcome = { counted: true } | { counted: false; dropped: string };

export async function collectView(deps: CollectDependencies, view: PageView): Promise<CollectOutcome> {
  const { path, url, userAgent } = view;
  if ((path ?? '').trim() === '' && (url ?? '').trim() === '') {
    throw httpErrors.invalid_body('Send the page as "path" (or "url").', {
      details: [{ location: 'body', name: 'path', message: 'path or url is required' }],
    });
  }
  if ((path ?? '').includes('\0') || (url ?? '').includes('\0')) {
    throw httpErrors.invalid_body('The page path holds the NUL character.', {
      details: [{ location: 'body', name: 'path', message: 'must not contain NUL' }],
    });
  }
  const at = deps.now();
  const outcome = await classifyRecord(
    {
      ...(path !== undefined ? { path } : {}),
      ...(url !== undefined ? { url } : {}),
      method: 'GET',
      timestamp: new Date(at),
      ip: view.address,
      ...(userAgent !== undefined ? { userAgent } : {}),
    },
    deps.classification,
  );
  if ('drop' in outcome) {
    deps.onRecords?.({ accepted: 0, dropped: { [outcome.drop]: 1 }, rejected: 0 });
    return { counted: false, dropped: outcome.drop };
  }
  const sums = ViewSums.ofRows([
    {
      projectId: view.projectId,
      hour: new Date(hourOf(at)),
      path: outcome.path,
      trafficClass: outcome.class,
      agent: outcome.agent,
      verification: outcome.verification,
      views: 1,
    },
  ]);
  if (outcome.class === 'human') {
    const assistant = deps.classification.referrers.assistantOf(view.referrer, view.utmSource);
    if (assistant !== null)
      sums.referrals.add(view.projectId, hourOf(at) / 1000, assistant.name, outcome.path, 1);
  }
  if (deps.visitorSalts !== undefined && outcome.class !== 'bot') {
    const hasher = await deps.visitorSalts.hasherAt(at);
    const id = hasher.id(view.projectId, outcome.class, view.address, userAgent);
    if (id !== null) sums.visitors.add(view.projectId, hourOf(at) / 1000, outcome.class, outcome.path, id);
  }
  await deps.writer.submit(sums);
  deps.onRecords?.({ accepted: 1, dropped: {}, rejected: 0 });
  return { counted: true };
}
