// The usage a job's row keeps: the last run's tokens, steps and cost, and the total over every run
// (the first prompt and each follow-up). The total is the previous row's total plus this run, so
// it survives a follow-up; a row from before costs were kept counts as a run of unknown cost.
import type { JobRow } from './queries.ts';
import type { JobUsage } from './runner-contract.ts';

export interface RecordedUsage extends JobUsage {
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
  costNote?: string;
  total: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    steps: number;
    costUsd: number | null;
  };
}

type StoredUsage = Partial<RecordedUsage> & { inputTokens: number; outputTokens: number; steps: number };

/** US dollars kept to 10 decimals, as the model_calls table keeps them. */
function addUsd(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.round((a + b) * 1e10) / 1e10;
}

function totalOf(stored: StoredUsage): RecordedUsage['total'] {
  if (stored.total) return stored.total;
  return {
    inputTokens: stored.inputTokens,
    outputTokens: stored.outputTokens,
    cacheReadTokens: stored.cacheReadTokens ?? 0,
    cacheWriteTokens: stored.cacheWriteTokens ?? 0,
    steps: stored.steps,
    costUsd: stored.costUsd ?? null,
  };
}

/**
 * The usage to store for a run that ended with `run` (null: it never reached the model). The
 * previous run's total is kept even then.
 */
export function recordedUsage(
  job: Pick<JobRow, 'usage' | 'model'>,
  run: JobUsage | null,
): RecordedUsage | JobUsage | null {
  const previous = job.usage as StoredUsage | null;
  if (run === null && previous === null) return null;
  // A runner that measures no cost (not the agent's) keeps the usage it reported, as it was.
  if (run !== null && !('costUsd' in run) && previous?.total === undefined) return run;
  const thisRun = run ?? { inputTokens: 0, outputTokens: 0, steps: 0, costUsd: 0 };
  const cost = thisRun.costUsd === undefined ? null : thisRun.costUsd;
  const own = {
    inputTokens: thisRun.inputTokens,
    outputTokens: thisRun.outputTokens,
    steps: thisRun.steps,
    cacheReadTokens: thisRun.cacheReadTokens ?? 0,
    cacheWriteTokens: thisRun.cacheWriteTokens ?? 0,
    costUsd: cost,
  };
  const before = previous === null ? null : totalOf(previous);
  const total =
    before === null
      ? { ...own }
      : {
          inputTokens: before.inputTokens + own.inputTokens,
          outputTokens: before.outputTokens + own.outputTokens,
          cacheReadTokens: before.cacheReadTokens + own.cacheReadTokens,
          cacheWriteTokens: before.cacheWriteTokens + own.cacheWriteTokens,
          steps: before.steps + own.steps,
          costUsd: addUsd(before.costUsd, own.costUsd),
        };
  return {
    ...own,
    ...(cost === null
      ? {
          costNote: `No price is known for the model ${job.model || '(none)'}: add one to the price table (DOCWRIGHT_MODEL_PRICES_FILE) or to the project's modelPrices setting. (A call that could not be priced at all, e.g. while the database was away, is in the server log.)`,
        }
      : {}),
    total,
  };
}
