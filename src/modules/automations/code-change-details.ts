// What a code_change run learns from the watched code repository before its job starts: the
// changed files and a size-capped diff at the merged commit (filled into {{event.changedFiles}}
// and {{event.diff}}), and where the job's code tools read it. The automation worker asks a
// reader given to it (src/agent/code-source builds the real one, which fetches the commit into
// the code mirror); without one, runs go on as the webhook told them.
import type { AutomationTrigger } from '../../contract/index.ts';

export interface CodeChangeRequest {
  projectId: string;
  host: string;
  /** owner/name (GitLab: the full path). */
  repository: string;
  /** The clone URL the code host's webhook gave; null when it gave none. */
  cloneUrl: string | null;
  commit: string;
  /** A push's previous head; null for a merged pull request (compared with the first parent). */
  before: string | null;
  signal?: AbortSignal;
}

export interface CodeChangeDetails {
  /** Paths the change added, modified, deleted or renamed. */
  changedFiles: string[];
  /** Unified diff, cut at file boundaries with a note saying what was left out. */
  diff: string;
  /** Where the code was fetched from (the job's code tools read it there). */
  repositoryUrl: string;
}

/** Throws (with a message fit for the run's skip reason) when the commit cannot be fetched. */
export type ReadCodeChange = (request: CodeChangeRequest) => Promise<CodeChangeDetails>;

/** Whether any of the files is under one of the trigger's path prefixes (no paths: true). */
export function touchesPaths(trigger: AutomationTrigger, files: readonly string[]): boolean {
  if (trigger.type !== 'code_change' || !trigger.paths) return true;
  const prefixes = trigger.paths.map((p) => p.replace(/\*+$/, ''));
  return files.some((file) => prefixes.some((prefix) => file.startsWith(prefix)));
}
