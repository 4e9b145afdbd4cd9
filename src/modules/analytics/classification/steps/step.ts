// The shape every pipeline step shares. A step reads the state built by the steps before it and
// returns more state, a drop with its reason, or nothing (keep going unchanged). Steps are plain
// functions of (state, context), so each one can be tested alone.

import type { Agent } from '../agent-list.ts';
import type { ClassificationContext } from '../context.ts';
import type { ClassifiedView, Dropped, RequestRecord, StepName } from '../types.ts';
import type { UserAgentVerdict } from '../user-agent-verdict.ts';

export interface PipelineState {
  record: RequestRecord;
  /** The request's time in seconds since the epoch (its timestamp, or now). */
  atSeconds: number;
  path?: string;
  markdown?: boolean;
  verdict?: UserAgentVerdict;
  /** The agent entry behind view.agent, when it came from the agent list. */
  agentEntry?: Agent | null;
  view?: ClassifiedView;
}

export type StepOutput = Partial<PipelineState> | Dropped | undefined;

export interface Step {
  name: StepName;
  run(state: PipelineState, context: ClassificationContext): StepOutput | Promise<StepOutput>;
}

export function drop(step: StepName, reason: Dropped['drop']): Dropped {
  return { drop: reason, step };
}
