// What every tool receives and returns. Tools are plain async functions of (context, input) that
// never throw for a problem the model caused: they answer a ToolResult whose text says what was
// wrong. Only faults of docwright itself (a disk error, git missing) escape as exceptions.
import type { GitRunner } from '../workspace/git-runner.ts';
import type { Guards } from './guards.ts';

/** What a tool reports for the job's event stream: which tool, on which path, and whether it worked. */
export interface ToolEvent {
  tool: string;
  path?: string;
  /** The destination of move_file. */
  to?: string;
  ok: boolean;
  /** The first line of the refusal, when the call failed. */
  error?: string;
}

export interface ToolResult {
  ok: boolean;
  /** What the model reads. */
  text: string;
  /** The path the call was about (as the model gave it, normalised when it could be). */
  path?: string;
  to?: string;
  /** Files this call changed on disk, relative to the root, symlinks resolved (for staging). */
  changed?: string[];
}

export interface FinishRecord {
  title: string;
  summary: string;
}

export interface ToolContext {
  guards: Guards;
  git: GitRunner;
  /** Set by the finish tool; the loop stops once it is set. */
  finish: FinishRecord | null;
  /** Runs the docs checks (check_docs), answering the model's text; absent when checks are off. */
  checkDocs?: (paths: string[]) => Promise<string>;
}

export const success = (text: string, path?: string, to?: string): ToolResult => ({
  ok: true,
  text,
  path,
  to,
});
export const failure = (text: string, path?: string, to?: string): ToolResult => ({
  ok: false,
  text,
  path,
  to,
});

/** `result`, saying which files the call changed (root-relative, symlinks resolved). */
export const changed = (result: ToolResult, ...paths: string[]): ToolResult => ({
  ...result,
  changed: paths,
});
