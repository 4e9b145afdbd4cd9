// The code a job's agent may read: set on a prompt by the code_change automation run that gave
// it (src/modules/automations), read by the agent runner when it runs that prompt, which then
// offers the read-only code tools at that commit. Stored per prompt, so a follow-up for a later
// merge reads the later commit.
import type { Queryable } from '../../db/database.ts';
import { selectLatestCodeSource } from './code-source-queries.ts';

export interface JobCodeSource {
  /** The code host's kind, as the automation's trigger names it. */
  host: string;
  /** owner/name (GitLab: the full path). */
  repository: string;
  /** The URL git fetches it from (http/https, no credentials). */
  repositoryUrl: string;
  /** The commit the run followed. */
  commit: string;
}

/** The code source of the newest prompt of the job that has one (a human follow-up keeps it), or null. */
export async function readJobCodeSource(db: Queryable, jobId: string): Promise<JobCodeSource | null> {
  const value = await selectLatestCodeSource(db, jobId);
  if (value === null || typeof value !== 'object') return null;
  const source = value as Partial<JobCodeSource>;
  const ok = ['host', 'repository', 'repositoryUrl', 'commit'].every(
    (key) => typeof source[key as keyof JobCodeSource] === 'string',
  );
  return ok ? (source as JobCodeSource) : null;
}
