// The CI status of a commit as the code hosts report it, in one shape: GitHub check runs and
// commit statuses, GitLab pipeline jobs, Gitea commit statuses. The adapters map their host's
// states onto three (pending, success, failure) and hand back, for failed checks, what the host
// says about them (cleaned here: no ANSI escapes, no control characters, capped in size).

/** One check: a GitHub check run or commit status, a GitLab job, a Gitea commit status. */
export interface CiCheck {
  /** The check's name: GitHub's check run name or status context, GitLab's job name, Gitea's context. */
  name: string;
  /**
   * pending: queued or running. success: passed, or nothing to pass (GitHub neutral and skipped,
   * GitLab skipped, manual and allowed failures, Gitea warning). failure: failed, errored, timed
   * out, cancelled or waiting for an action.
   */
  state: 'pending' | 'success' | 'failure';
  /** The check's web page on the host or the CI system, when it gave one. */
  url: string | null;
  /**
   * For a failed check: what the host says about it (GitHub: the check run's output title,
   * summary and text, or the status description; GitLab: the end of the job's log; Gitea: the
   * status description). Plain text, at most CI_DETAILS_MAX_CHARS characters; null otherwise.
   */
  details: string | null;
}

export interface CiStatus {
  /**
   * none: the host knows no check for the commit (yet). pending: some check has not finished.
   * success: every check passed. failure: every check finished and at least one failed.
   */
  state: 'none' | 'pending' | 'success' | 'failure';
  checks: CiCheck[];
}

export interface CiStatusInput {
  /** The project's repository URL, as for pull requests. */
  repositoryUrl: string;
  /** The full commit id whose checks are read. */
  sha: string;
  signal?: AbortSignal;
}

/** The most characters kept of one failed check's details. */
export const CI_DETAILS_MAX_CHARS = 4000;
/** The most checks reported for one commit (a host may run hundreds). */
export const CI_MAX_CHECKS = 100;
/** For how many failed checks an adapter fetches more than the list gives (GitLab's job logs). */
export const CI_MAX_DETAILED_FAILURES = 3;

/** The overall state of a commit's checks (see CiStatus.state). */
export function combineCiChecks(checks: readonly CiCheck[]): CiStatus['state'] {
  if (checks.length === 0) return 'none';
  if (checks.some((c) => c.state === 'pending')) return 'pending';
  return checks.some((c) => c.state === 'failure') ? 'failure' : 'success';
}

// CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks), other escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// Control characters except tab and newline (carriage returns included: progress bars).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
// GitLab's collapsible sections: "section_start:1700000000:step_script\r\u001b[0K".
const GITLAB_SECTION = /section_(?:start|end):\d+:[A-Za-z0-9_.-]+(?:\[[^\]]*\])?/g;

/**
 * Text from a CI system as plain text: escapes, section markers and control characters removed,
 * runs of blank lines made one. `keep` says which end survives the cap: a log's end tells why it
 * failed, a summary's start what failed.
 */
export function cleanCiText(
  raw: string | null | undefined,
  keep: 'start' | 'end',
  maxChars = CI_DETAILS_MAX_CHARS,
): string | null {
  if (!raw) return null;
  const text = raw
    .replace(ANSI, '')
    .replace(GITLAB_SECTION, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r/g, '\n')
    .replace(CONTROL, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (text === '') return null;
  if (text.length <= maxChars) return text;
  const marker = '… (cut)';
  return keep === 'end'
    ? `${marker}\n${text.slice(text.length - maxChars + marker.length + 1)}`
    : `${text.slice(0, maxChars - marker.length - 1)}\n${marker}`;
}

/** The status with every check's details passed through `scrub` (the adapter's known secrets). */
export function scrubCiStatus(status: CiStatus, scrub: (text: string) => string): CiStatus {
  return {
    state: status.state,
    checks: status.checks.map((c) => ({ ...c, details: c.details === null ? null : scrub(c.details) })),
  };
}
