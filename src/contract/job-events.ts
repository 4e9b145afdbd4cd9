// The types of job events (GET .../job/{id}/events, docs/job-events.md), in the order a run
// writes them. Clients should ignore types they do not know: new ones may be added. No run-time
// imports: the client loads this file.
export const JOB_EVENT_TYPES = [
  'created',
  'started',
  'workspace',
  'docs_framework',
  'docs_checks',
  'tool_call',
  'step',
  'model_retry',
  'committed',
  'pushed',
  'pull_request',
  'completed',
  'ci_status',
  'failed',
  'message',
  'archived',
  'released',
  'budget_alert',
] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** The type as one of JOB_EVENT_TYPES, or null for a type this version does not know. */
export function knownJobEventType(type: string): JobEventType | null {
  return (JOB_EVENT_TYPES as readonly string[]).includes(type) ? (type as JobEventType) : null;
}
