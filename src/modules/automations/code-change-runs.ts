// A code_change run's events, completed from the watched code repository before its job starts:
// each merged pull request or push gets its changed files and diff, read at its commit. Then the
// trigger's `paths` filter (which the webhook of a merged pull request cannot answer: it carries
// no file list) keeps the events that touch the paths. The run's job reads the code of the last
// kept event's commit with its code tools.
import type { AutomationTrigger } from '../../contract/index.ts';
import type { JobCodeSource } from '../jobs/index.ts';
import { type ReadCodeChange, touchesPaths } from './code-change-details.ts';

export type PreparedEvents =
  | { ok: true; events: Record<string, unknown>[]; codeSource: JobCodeSource | null }
  | { ok: false; reason: string };

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The events with changedFiles and diff filled from the code repository; a failure says why. */
export async function readCodeChanges(
  read: ReadCodeChange,
  projectId: string,
  events: Record<string, unknown>[],
  signal?: AbortSignal,
): Promise<PreparedEvents> {
  const completed: Record<string, unknown>[] = [];
  let codeSource: JobCodeSource | null = null;
  for (const event of events) {
    const host = text(event.host);
    const repository = text(event.repository);
    const commit = text(event.mergedCommit);
    if (host === null || repository === null || commit === null) {
      completed.push(event);
      continue;
    }
    try {
      const details = await read({
        projectId,
        host,
        repository,
        cloneUrl: text(event.cloneUrl),
        commit,
        before: event.kind === 'push' ? text(event.before) : null,
        signal,
      });
      completed.push({ ...event, changedFiles: details.changedFiles, diff: details.diff });
      codeSource = { host, repository, repositoryUrl: details.repositoryUrl, commit };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        reason: `the code repository ${repository} could not be read at ${commit.slice(0, 12)}: ${message.slice(0, 500)}`,
      };
    }
  }
  return { ok: true, events: completed, codeSource };
}

/**
 * The events that pass the trigger's `paths` filter (all when it has none), and the code source
 * of the last of them; null when none does.
 */
export function keepTouchingPaths(
  trigger: AutomationTrigger,
  prepared: { events: Record<string, unknown>[]; codeSource: JobCodeSource | null },
): { events: Record<string, unknown>[]; codeSource: JobCodeSource | null } | null {
  if (trigger.type !== 'code_change' || !trigger.paths) return prepared;
  const kept = prepared.events.filter((event) =>
    touchesPaths(trigger, Array.isArray(event.changedFiles) ? (event.changedFiles as string[]) : []),
  );
  if (kept.length === 0) return null;
  const last = kept.at(-1)!;
  const source = prepared.codeSource;
  const codeSource =
    source && typeof last.mergedCommit === 'string' ? { ...source, commit: last.mergedCommit } : source;
  return { events: kept, codeSource };
}
