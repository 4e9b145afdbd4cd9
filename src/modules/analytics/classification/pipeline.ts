// Classification of request records as a pipeline of named steps:
//   method → status → path → asset → user_agent → verification
// Each step may drop the record with a typed reason; the caller counts drops per reason.
// Everything but Web Bot Auth verification is synchronous and cheap; a record only waits when it
// carries a signature whose key directory is not cached yet, and then at most the verifier's
// per-record wait.

import type { ClassificationContext } from './context.ts';
import { assetStep } from './steps/asset.ts';
import { methodStep } from './steps/method.ts';
import { pathStep } from './steps/path.ts';
import { statusStep } from './steps/status.ts';
import type { PipelineState, Step, StepOutput } from './steps/step.ts';
import { userAgentStep } from './steps/user-agent.ts';
import { verificationStep } from './steps/verification.ts';
import {
  type ClassificationOutcome,
  type ClassifiedView,
  DROP_REASONS,
  type Dropped,
  type DropReason,
  type RequestRecord,
} from './types.ts';

export const PIPELINE: readonly Step[] = [
  methodStep,
  statusStep,
  pathStep,
  assetStep,
  userAgentStep,
  verificationStep,
];

/** The request's time in seconds; records without a usable timestamp are taken as happening now. */
export function requestSeconds(record: RequestRecord, nowMs: number): number {
  const { timestamp } = record;
  const ms =
    timestamp instanceof Date
      ? timestamp.getTime()
      : typeof timestamp === 'string'
        ? Date.parse(timestamp)
        : Number.NaN;
  return Math.floor((Number.isFinite(ms) ? ms : nowMs) / 1000);
}

function isDrop(output: StepOutput): output is Dropped {
  return output !== undefined && 'drop' in output;
}

/**
 * Runs the steps from `first` on; synchronous until a step answers with a promise (a Web Bot
 * Auth key directory not cached yet), so the common record costs no promise at all. The state is
 * the record's own, updated in place.
 */
function runSteps(
  state: PipelineState,
  first: number,
  context: ClassificationContext,
): ClassificationOutcome | Promise<ClassificationOutcome> {
  for (let i = first; i < PIPELINE.length; i++) {
    const output = PIPELINE[i]!.run(state, context);
    if (output instanceof Promise) {
      return output.then((settled) => {
        if (isDrop(settled)) return settled;
        if (settled !== undefined) Object.assign(state, settled);
        return runSteps(state, i + 1, context);
      });
    }
    if (isDrop(output)) return output;
    if (output !== undefined) Object.assign(state, output);
  }
  return state.view!;
}

function startState(record: RequestRecord, context: ClassificationContext): PipelineState {
  return { record, atSeconds: requestSeconds(record, context.now()) };
}

/**
 * One record's outcome, synchronously unless its Web Bot Auth signature waits for a key
 * directory: for callers that keep the common record free of promises (ingest-batch.ts).
 */
export function classifyRecordNow(
  record: RequestRecord,
  context: ClassificationContext,
): ClassificationOutcome | Promise<ClassificationOutcome> {
  return runSteps(startState(record, context), 0, context);
}

export async function classifyRecord(
  record: RequestRecord,
  context: ClassificationContext,
): Promise<ClassificationOutcome> {
  return classifyRecordNow(record, context);
}

export interface BatchClassification {
  /** One entry per kept record, with its index in the batch. */
  views: { index: number; view: ClassifiedView }[];
  /** Dropped records per reason (every reason present, zero when none). */
  dropped: Record<DropReason, number>;
}

/**
 * Classifies a batch. Records whose classification waits (a key directory being fetched) run
 * concurrently, so one slow directory delays only its own; the rest are done synchronously.
 */
export async function classifyBatch(
  records: readonly RequestRecord[],
  context: ClassificationContext,
): Promise<BatchClassification> {
  const outcomes: (ClassificationOutcome | Promise<ClassificationOutcome>)[] = new Array(records.length);
  let waiting = false;
  for (let index = 0; index < records.length; index++) {
    const outcome = classifyRecordNow(records[index]!, context);
    if (outcome instanceof Promise) waiting = true;
    outcomes[index] = outcome;
  }
  const settled = waiting ? await Promise.all(outcomes) : (outcomes as ClassificationOutcome[]);
  const dropped = Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as Record<DropReason, number>;
  const views: BatchClassification['views'] = [];
  for (let index = 0; index < settled.length; index++) {
    const outcome = settled[index]!;
    if ('drop' in outcome) dropped[outcome.drop]++;
    else views.push({ index, view: outcome });
  }
  return { views, dropped };
}
