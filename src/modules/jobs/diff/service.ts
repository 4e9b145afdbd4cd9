// The job's diff: saved by the runner after it commits (the worktree is removed after a run, so
// the diff is kept in the database), read by GET .../job/{id}/diff.

import { MAX_DIFF_BYTES } from '../../../contract/index.ts';
import type { Queryable } from '../../../db/database.ts';
import { getJob } from '../service.ts';
import { jobDiffErrors } from './errors.ts';
import { selectJobDiff, upsertJobDiff } from './queries.ts';

// Diffs above MAX_DIFF_BYTES UTF-8 bytes (declared in the contract, whose diff schema states it)
// are cut; the branch on the code host has the rest.

export interface CappedDiff {
  text: string;
  totalBytes: number;
  truncated: boolean;
}

/**
 * Keeps at most maxBytes of the diff, cut at the end of a line, and appends a note saying how
 * much was left out. NUL (which PostgreSQL text cannot hold, and git shows binary files without)
 * becomes U+FFFD.
 */
export function capDiff(diffText: string, maxBytes = MAX_DIFF_BYTES): CappedDiff {
  const bytes = Buffer.from(diffText, 'utf8');
  const clean = (text: string) => text.replaceAll('\0', '\uFFFD');
  if (bytes.length <= maxBytes) return { text: clean(diffText), totalBytes: bytes.length, truncated: false };
  let cut = bytes.lastIndexOf(0x0a, maxBytes - 1) + 1;
  if (cut === 0) {
    // One enormous line: cut at a character boundary instead (never inside a UTF-8 sequence).
    cut = maxBytes;
    while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  }
  const kept = bytes.subarray(0, cut).toString('utf8');
  const note = `${kept.endsWith('\n') ? '' : '\n'}# docwright: diff truncated: the first ${formatBytes(cut)} of ${formatBytes(bytes.length)} are shown; the job's branch has all of it.\n`;
  return { text: clean(kept) + note, totalBytes: bytes.length, truncated: true };
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Stores the job's unified diff (from the runner, after committing), replacing an earlier one.
 * Call it with the diff of the whole branch against its base, so a follow-up's diff shows all
 * of the job's work.
 */
export async function saveJobDiff(
  db: Queryable,
  jobId: string,
  diffText: string,
  maxBytes = MAX_DIFF_BYTES,
): Promise<{ totalBytes: number; truncated: boolean }> {
  const capped = capDiff(diffText, maxBytes);
  await upsertJobDiff(db, {
    jobId,
    diff: capped.text,
    totalBytes: capped.totalBytes,
    truncated: capped.truncated,
  });
  return { totalBytes: capped.totalBytes, truncated: capped.truncated };
}

export interface JobDiffView {
  diff: string;
  truncated: boolean;
  /** Size of the whole diff in UTF-8 bytes (more than the text holds when truncated). */
  totalBytes: number;
  updatedAt: string;
}

export async function getJobDiff(db: Queryable, projectId: string, jobId: string): Promise<JobDiffView> {
  const job = await getJob(db, projectId, jobId);
  const row = await selectJobDiff(db, jobId);
  if (row === null) throw jobDiffErrors.job_diff_not_found(noDiffReason(job.id, job.status, job.prLink));
  return {
    diff: row.diff,
    truncated: row.truncated,
    totalBytes: row.total_bytes,
    updatedAt: row.updated_at.toISOString(),
  };
}

function noDiffReason(id: string, status: string, prLink: string | null): string {
  const stored = 'The diff is stored when the agent commits its changes.';
  if (status === 'active') return `Job "${id}" has no diff yet: it is still running. ${stored}`;
  if (status === 'completed' && prLink === null) {
    return `Job "${id}" has no diff: it completed without changing any file.`;
  }
  if (status === 'failed') {
    return `Job "${id}" has no diff: it failed before the agent committed a change.`;
  }
  return `Job "${id}" has no stored diff: it changed no file, failed before committing, or ran before diffs were kept. ${stored}`;
}
