// The part of a classified view that a rollup row is keyed by besides hour and path: class,
// agent and verification. The ingest fast path hands these around as shared objects made once
// per user agent, so a record allocates nothing; views are summed under their parts (view-sums.ts).

import type { ClassifiedView, TrafficClass, Verification } from './types.ts';

export interface ViewKind {
  trafficClass: TrafficClass;
  /** Agent name for `ai` and `bot`; '' for humans. */
  agent: string;
  verification: Verification;
  /** An agent name holding NUL must never reach the commit (see ingest-batch.ts). */
  agentHasNul: boolean;
}

export function viewKind(trafficClass: TrafficClass, agent: string, verification: Verification): ViewKind {
  return {
    trafficClass,
    agent,
    verification,
    agentHasNul: agent.includes('\0'),
  };
}

export function viewKindOf(view: ClassifiedView): ViewKind {
  return viewKind(view.class, view.agent, view.verification);
}
