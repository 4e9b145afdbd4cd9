// How git trouble reaches the job: a WorkspaceFailure whose `code` is one of the job failure codes
// (docs/errors.md, "Job failure codes") and whose `kind` says more precisely what happened. The
// codes are repeated here rather than imported from the jobs module; test/agent checks that each
// is a job failure code. Messages are built from scrubbed git output only.

export const WORKSPACE_FAILURE_CODES = {
  push_rejected: 'The code host refused the push (not a fast-forward, or a protected branch).',
  code_host_auth: 'The code host refused the token (401/403).',
  repository_unavailable: 'The repository, or the ref asked for, could not be reached or does not exist.',
  internal_error: 'git failed in a way none of the other codes describes.',
} as const;
export type WorkspaceFailureCode = keyof typeof WORKSPACE_FAILURE_CODES;

export type WorkspaceFailureKind =
  | 'push_rejected'
  | 'auth'
  | 'not_found'
  | 'ref_not_found'
  | 'network'
  | 'invalid_repository_url'
  | 'git_failed';

const CODE_OF_KIND: Record<WorkspaceFailureKind, WorkspaceFailureCode> = {
  push_rejected: 'push_rejected',
  auth: 'code_host_auth',
  not_found: 'repository_unavailable',
  ref_not_found: 'repository_unavailable',
  network: 'repository_unavailable',
  invalid_repository_url: 'repository_unavailable',
  git_failed: 'internal_error',
};

export class WorkspaceFailure extends Error {
  readonly kind: WorkspaceFailureKind;
  readonly code: WorkspaceFailureCode;

  constructor(kind: WorkspaceFailureKind, message: string) {
    // No cause is attached: it would carry git's raw output, which only the scrubbed message may.
    super(message);
    this.name = 'WorkspaceFailure';
    this.kind = kind;
    this.code = CODE_OF_KIND[kind];
  }
}

// git's wording (LC_ALL=C) for each kind, checked in this order: a refused token first (a 403 on
// push is about the token, not the branch), network last (its "unable to access" prefixes the
// others). The HTTP transport prints
// "could not read Username" when the server answered 401 and prompts are off, and "returned
// error: 403" when it answered 403.
const PATTERNS: ReadonlyArray<readonly [WorkspaceFailureKind, RegExp]> = [
  [
    'auth',
    /could not read (?:Username|Password)|Authentication failed|returned error: 40[13]\b|HTTP Basic: Access denied|Permission to .* denied/i,
  ],
  ['push_rejected', /!\s*\[(?:remote )?rejected\]|\(non-fast-forward\)|\(fetch first\)/i],
  ['ref_not_found', /couldn't find remote ref/i],
  ['not_found', /repository '.*' not found|returned error: 404\b|does not appear to be a git repository/i],
  [
    'network',
    /Could not resolve (?:host|proxy)|Failed to connect|Connection (?:refused|timed out|reset)|Couldn't connect|Operation timed out|\bSSL\b|\bTLS\b|unable to access|RPC failed|early EOF|the remote end hung up|returned error: 5\d\d\b/i,
  ],
];

/** The kind of failure git's stderr describes; git_failed when it is none of the known ones. */
export function classifyGitError(stderr: string): WorkspaceFailureKind {
  for (const [kind, pattern] of PATTERNS) if (pattern.test(stderr)) return kind;
  return 'git_failed';
}

const LEADS: Record<WorkspaceFailureKind, string> = {
  push_rejected: 'The code host rejected the push',
  auth: 'The code host refused the token',
  not_found: 'The repository was not found (or the token cannot see it)',
  ref_not_found: 'The ref was not found in the repository',
  network: 'The code host could not be reached',
  invalid_repository_url: 'The repository URL cannot be used',
  git_failed: 'git failed',
};

/** The lines of git's stderr worth showing: the fatal/error/rejection lines, not progress. */
export function summariseGitOutput(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter(
      (line) =>
        line.length > 0 &&
        !/^(Cloning|Enumerating|Counting|Compressing|Receiving|Resolving|Writing|Total)\b/.test(line),
    );
  const important = lines.filter((line) => /^(fatal|error|remote|!|hint: Updates were rejected)/i.test(line));
  const chosen = (important.length > 0 ? important : lines).slice(0, 6).join(' | ');
  return chosen.length > 600 ? `${chosen.slice(0, 600)}…` : chosen;
}

/** A failure for a git command that exited non-zero; `stderr` must already be scrubbed. */
export function gitFailure(action: string, stderr: string): WorkspaceFailure {
  const kind = classifyGitError(stderr);
  const detail = summariseGitOutput(stderr);
  return new WorkspaceFailure(kind, `${LEADS[kind]} (${action})${detail ? `: ${detail}` : ''}`);
}
