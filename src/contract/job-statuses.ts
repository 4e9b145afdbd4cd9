// The four statuses of an agent job (fixed by the public contract). No run-time imports: the
// client loads this file.
export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses after which a job does not change unless someone acts on it. */
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'archived', 'failed'];

export function isFinalStatus(status: JobStatus): boolean {
  return FINAL_JOB_STATUSES.includes(status);
}
