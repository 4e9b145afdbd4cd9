// Group commit for ingestion. Every ingest request waits until its page views are committed
// before it is answered, so an acknowledged view survives a crash. Committing each request in
// its own transaction would cost one commit (a WAL flush) per request; instead the views of all
// requests that arrive within a short window, or while the previous commit runs, are written in
// ONE transaction, and then every request of that group is answered together.
//
// What a group commit writes is one staged row: the group's views summed per rollup key
// (staged-views.ts). The writer's StagedViewMerger moves staged rows into the rollups a moment
// later, many groups at once; exports merge what is staged before they read.
//
// Rules:
// - A request is never split across transactions: it is committed whole or not at all, so a
//   failed group can be retried by its clients without counting anything twice.
// - At most maxConcurrentCommits groups are being committed at once (one by default, and always
//   one on PGlite, which is a single session). Requests arriving meanwhile form the next group,
//   written as soon as a commit ends: under load the groups grow by themselves. On PostgreSQL
//   more than one may run (each only inserts its own staged row, so concurrent groups cannot
//   deadlock), for machines where the database has cores to spare.
// - Pending views are bounded: past maxPendingViews waiting in memory, or maxStagedViews staged
//   and not merged yet (the merger falls behind), a request is refused at once (503 with
//   Retry-After) instead of queuing without bound.
// - If the transaction fails, every request of the group gets 503 with Retry-After: never a 202
//   for views that were not committed.
// - A request with an Idempotency-Key claims it in the same transaction (queries.ts). A key
//   already taken within 24 hours (a retry whose first try was committed, maybe in this very
//   group) leaves that request's views out, and it resolves as a duplicate: the route answers it
//   with the stored result. A group without keys has one write, the staging statement, and
//   sends it alone without BEGIN and COMMIT: one statement is a transaction of its own in
//   PostgreSQL, committed whole or not at all, and each statement saved is a round trip on
//   PostgreSQL and six protocol calls into PGlite's wasm.
import type { Database, Queryable } from '../../../db/database.ts';
import {
  CommittedVisitors,
  type StagedMergerOptions,
  StagedViewMerger,
  stageViews,
  ViewSums,
  type VisitorSets,
} from '../store/index.ts';
import { ingestErrors } from './errors.ts';
import { claimId, deleteExpiredIngestBatches, type IngestClaim, insertIngestClaims } from './queries.ts';
import type { StagedIdCheck } from './rollup-tally.ts';

/** Where a failed commit is reported (the app's logger). */
export interface CommitLog {
  error(details: object, message: string): void;
}

/** How often expired keys are deleted, at most (in a group's transaction that has keys). */
const KEY_SWEEP_INTERVAL_MS = 10 * 60_000;

/** What became of a submission: its views were counted, or its key had already been used. */
export type SubmitOutcome = 'committed' | 'duplicate';

/** Told about every group commit and every refusal (the metrics). */
export interface GroupCommitObserver {
  /** A group's transaction ended: committed (ok) or rolled back (its requests got 503). */
  flushed(report: { ok: boolean; seconds: number; requests: number; views: number }): void;
  /** A request was refused at once (503 ingest_overloaded): too many views were pending. */
  refused(views: number): void;
}

export interface GroupCommitOptions {
  observer?: GroupCommitObserver;
  /** How long the first request of a group waits for others before the group is written. */
  windowMs: number;
  /** A group is written at once when this many views wait (without waiting for the window). */
  maxGroupViews: number;
  /** Views waiting or being committed beyond which new requests are refused with 503. */
  maxPendingViews: number;
  /** Views staged by this writer and not merged yet beyond which new requests are refused with 503. */
  maxStagedViews: number;
  /** When the staged views are merged into the rollups (staged-merger.ts). */
  merger: Partial<StagedMergerOptions>;
  /** Seconds a refused client should wait, sent as Retry-After. */
  retryAfterSeconds: number;
  /** Groups committed at the same time (on separate connections); 1 on PGlite. */
  maxConcurrentCommits: number;
}

export const DEFAULT_GROUP_COMMIT: GroupCommitOptions = {
  windowMs: 5,
  maxGroupViews: 20_000,
  maxPendingViews: 200_000,
  // About ten seconds of the fastest ingest measured here: a merger that falls further behind
  // than that is not keeping up, and clients hear so instead of the backlog growing.
  maxStagedViews: 2_000_000,
  merger: {},
  retryAfterSeconds: 1,
  // One: a commit is a single insert now, and a second one at a time gave no gain in
  // bench/ingest.ts (--commits 2) on a 2-core machine, where PostgreSQL and this process each
  // need a core.
  maxConcurrentCommits: 1,
};

export interface GroupCommitStats {
  /** Transactions committed. */
  commits: number;
  /** Transactions that failed (their requests got 503). */
  failedCommits: number;
  /** Requests whose views were committed. */
  committedRequests: number;
  /** Views committed. */
  committedViews: number;
  /** Requests refused because too many views were pending. */
  overloadRefusals: number;
  /** Requests waiting for the next group (not the one being committed). */
  waitingRequests: number;
  /** Views waiting or being committed. */
  pendingViews: number;
  /** Views committed (staged) and not merged into the rollups yet. */
  stagedViews: number;
}

interface Submission {
  sums: ViewSums;
  views: number;
  claim: IngestClaim | null;
  resolve: (outcome: SubmitOutcome) => void;
  reject: (error: unknown) => void;
}

export class GroupCommitWriter {
  readonly #db: Database;
  readonly #options: GroupCommitOptions;
  readonly #logger: CommitLog | undefined;
  readonly #merger: StagedViewMerger;
  /** Visitor ids already staged by this writer's commits: not staged again (visitor-memo.ts). */
  readonly #committedVisitors = new CommittedVisitors();
  #waiting: Submission[] = [];
  #waitingViews = 0;
  #committingViews = 0;
  #timer: NodeJS.Timeout | null = null;
  readonly #committing = new Set<Promise<void>>();
  #closed = false;
  #closing: Promise<void> | null = null;
  #lastKeySweep = 0;
  readonly #stats = {
    commits: 0,
    failedCommits: 0,
    committedRequests: 0,
    committedViews: 0,
    overloadRefusals: 0,
  };

  constructor(db: Database, options: Partial<GroupCommitOptions> = {}, logger?: CommitLog) {
    this.#db = db;
    this.#options = { ...DEFAULT_GROUP_COMMIT, ...options };
    // PGlite is one session: a second transaction would only queue behind the first.
    if (db.kind === 'pglite') this.#options.maxConcurrentCommits = 1;
    this.#logger = logger;
    // A merger behind by a quarter of the bound merges at once, long before requests are refused.
    const merger = {
      mergeAtViews: Math.max(1, Math.floor(this.#options.maxStagedViews / 4)),
      ...this.#options.merger,
    };
    this.#merger = new StagedViewMerger(db, merger, logger);
    this.#merger.start();
  }

  /** The visitor ids this writer has staged: ingest leaves them out of its sums at once. */
  get committedVisitors(): StagedIdCheck {
    return this.#committedVisitors;
  }

  get stats(): GroupCommitStats {
    return {
      ...this.#stats,
      waitingRequests: this.#waiting.length,
      pendingViews: this.#waitingViews + this.#committingViews,
      stagedViews: this.#merger.backlogViews,
    };
  }

  /**
   * Resolves once the views are committed; rejects with a 503 AppError when they were not
   * (nothing of them is counted then). With a claim, resolves 'duplicate' (nothing counted) when
   * its key was already taken.
   */
  submit(sums: ViewSums, claim: IngestClaim | null = null): Promise<SubmitOutcome> {
    const views = sums.views;
    if (this.#closed) {
      return Promise.reject(
        ingestErrors.ingest_unavailable('The server is shutting down; nothing of this batch was counted.', {
          headers: this.#retryAfter(),
        }),
      );
    }
    const pending = this.#waitingViews + this.#committingViews;
    const staged = this.#merger.backlogViews;
    // An empty writer takes any request, however large, so a big batch is never refused forever.
    const tooManyPending = pending > 0 && pending + views > this.#options.maxPendingViews;
    if (tooManyPending || staged > this.#options.maxStagedViews) {
      this.#stats.overloadRefusals++;
      this.#options.observer?.refused(views);
      const what = tooManyPending
        ? `${pending} page views waiting to be written`
        : `${staged} page views waiting to be merged into the reports`;
      return Promise.reject(
        ingestErrors.ingest_overloaded(
          `The server has ${what}; nothing of this batch was counted. Retry after ${this.#options.retryAfterSeconds} s.`,
          { headers: this.#retryAfter() },
        ),
      );
    }
    return new Promise<SubmitOutcome>((resolve, reject) => {
      this.#waiting.push({ sums, views, claim, resolve, reject });
      this.#waitingViews += views;
      this.#schedule();
    });
  }

  /**
   * Writes what is waiting, waits for the running commit, then refuses new requests; last, merges
   * what is staged (a kill instead leaves it staged, for the next start or export to merge).
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#clearTimer();
      while (this.#committing.size > 0 || this.#waiting.length > 0) {
        this.#startCommit();
        await Promise.race(this.#committing);
      }
      await this.#merger.close();
    })();
    return this.#closing;
  }

  #retryAfter(): Record<string, string> {
    return { 'retry-after': String(this.#options.retryAfterSeconds) };
  }

  #schedule(): void {
    // With every commit slot busy, the next commit to end starts the next group.
    if (this.#committing.size >= this.#options.maxConcurrentCommits) return;
    if (this.#waitingViews >= this.#options.maxGroupViews || this.#closed) {
      this.#clearTimer();
      this.#startCommit();
    } else {
      this.#timer ??= setTimeout(() => {
        this.#timer = null;
        this.#startCommit();
      }, this.#options.windowMs);
    }
  }

  #clearTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Takes whole requests, oldest first, up to maxGroupViews (at least one), and commits them. */
  #startCommit(): void {
    if (this.#committing.size >= this.#options.maxConcurrentCommits || this.#waiting.length === 0) return;
    this.#clearTimer();
    let views = 0;
    let taken = 0;
    while (taken < this.#waiting.length) {
      const next = this.#waiting[taken]!;
      if (taken > 0 && views + next.views > this.#options.maxGroupViews) break;
      views += next.views;
      taken++;
    }
    const group = this.#waiting.splice(0, taken);
    this.#waitingViews -= views;
    this.#committingViews += views;
    const commit: Promise<void> = this.#commit(group, views).finally(() => {
      this.#committing.delete(commit);
      this.#committingViews -= views;
      // Whoever arrived during the commit has waited long enough: write them now.
      if (this.#waiting.length > 0) this.#startCommit();
    });
    this.#committing.add(commit);
  }

  async #commit(group: Submission[], views: number): Promise<void> {
    const started = performance.now();
    const report = (ok: boolean) =>
      this.#options.observer?.flushed({
        ok,
        seconds: (performance.now() - started) / 1000,
        requests: group.length,
        views,
      });
    let counted: readonly Submission[] = group;
    let sums: ViewSums | null = null;
    let stagedId: number | null = null;
    let visitors: VisitorSets | null = null;
    const stage = async (q: Queryable) => {
      sums = sumSubmissions(counted);
      if (sums.views === 0) return;
      visitors = this.#committedVisitors.unseen(sums.visitors);
      stagedId = await stageViews(q, sums, visitors);
    };
    try {
      if (group.some((s) => s.claim !== null)) {
        await this.#db.transaction(async (tx) => {
          counted = await this.#claimKeys(tx, group);
          await stage(tx);
        });
      } else {
        // No keys: the group's only write is the staging statement (its views and visitor ids
        // in one INSERT with a CTE), atomic on its own, so BEGIN and COMMIT would only add two
        // statements' fixed cost (docs/ingestion.md, "The group commit in one statement").
        await stage(this.#db);
      }
    } catch (error) {
      this.#stats.failedCommits++;
      report(false);
      this.#logger?.error({ err: error, requests: group.length, views }, 'ingest group commit failed');
      const refusal = ingestErrors.ingest_unavailable(
        `The page views could not be committed; nothing of this batch was counted. Retry after ${this.#options.retryAfterSeconds} s.`,
        { headers: this.#retryAfter() },
      );
      for (const submission of group) submission.reject(refusal);
      return;
    }
    report(true);
    if (visitors !== null) this.#committedVisitors.committed(visitors);
    this.#stats.commits++;
    this.#stats.committedRequests += counted.length;
    for (const submission of counted) this.#stats.committedViews += submission.views;
    if (stagedId !== null) this.#merger.staged(stagedId, sums!);
    const countedSet = new Set(counted);
    for (const submission of group)
      submission.resolve(countedSet.has(submission) ? 'committed' : 'duplicate');
  }

  /** The group's submissions whose views are to be counted: those without a key or whose key was free. */
  async #claimKeys(tx: Queryable, group: readonly Submission[]): Promise<readonly Submission[]> {
    if (Date.now() - this.#lastKeySweep > KEY_SWEEP_INTERVAL_MS) {
      await deleteExpiredIngestBatches(tx);
      this.#lastKeySweep = Date.now();
    }
    // The first submission of a key in the group claims it; a later one in the same group is a
    // retry sent before the first was answered.
    const first = new Map<string, Submission>();
    for (const submission of group) {
      if (submission.claim === null) continue;
      const id = claimId(submission.claim);
      if (!first.has(id)) first.set(id, submission);
    }
    const claimed = await insertIngestClaims(
      tx,
      [...first.values()].map((s) => s.claim!),
    );
    return group.filter((submission) => {
      if (submission.claim === null) return true;
      const id = claimId(submission.claim);
      return claimed.has(id) && first.get(id) === submission;
    });
  }
}

/**
 * The views of a group's submissions summed per rollup key, into the first one's sums (a
 * submission's sums are not used again once its group is written).
 */
function sumSubmissions(submissions: readonly Submission[]): ViewSums {
  if (submissions.length === 0) return new ViewSums();
  const sums = submissions[0]!.sums;
  for (let i = 1; i < submissions.length; i++) sums.addSums(submissions[i]!.sums);
  return sums;
}
