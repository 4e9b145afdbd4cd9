// A commit's CI status on GitHub: its check runs (GitHub Actions and other Apps: GET
// /repos/{owner}/{repo}/commits/{ref}/check-runs, the latest run per name) and its commit
// statuses (older CI services: GET /repos/{owner}/{repo}/commits/{ref}/status, the latest per
// context), read at once. A failed check run's details are its output's title, summary and text;
// a failed status's, its description.
import type { Octokit } from '@octokit/rest';
import { CI_MAX_CHECKS, type CiCheck, type CiStatus, cleanCiText, combineCiChecks } from '../ci.ts';

type Call = <T>(
  action: string,
  send: (octokit: Octokit, request: { signal: AbortSignal }) => Promise<T>,
) => Promise<T>;

const PASSED_CONCLUSIONS = new Set(['success', 'neutral', 'skipped']);

export async function readGitHubCiStatus(
  call: Call,
  owner: string,
  repo: string,
  sha: string,
): Promise<CiStatus> {
  const where = `${owner}/${repo}`;
  const short = sha.slice(0, 12);
  const [runs, combined] = await Promise.all([
    call(`list the check runs of commit ${short} in ${where}`, (octokit, request) =>
      octokit.rest.checks.listForRef({ owner, repo, ref: sha, filter: 'latest', per_page: 100, request }),
    ),
    call(`read the commit status of ${short} in ${where}`, (octokit, request) =>
      octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100, request }),
    ),
  ]);
  const checks: CiCheck[] = [];
  for (const run of runs.data.check_runs) {
    // A completed run without a conclusion is still being written: treat it as running.
    const state =
      run.status !== 'completed' || run.conclusion === null
        ? 'pending'
        : PASSED_CONCLUSIONS.has(run.conclusion)
          ? 'success'
          : 'failure';
    const output = run.output;
    checks.push({
      name: run.name,
      state,
      url: run.details_url ?? run.html_url ?? null,
      details:
        state === 'failure'
          ? cleanCiText(
              [
                output.title,
                output.summary,
                output.text,
                run.conclusion === 'failure' ? '' : `(${run.conclusion})`,
              ]
                .filter(Boolean)
                .join('\n\n'),
              'start',
            )
          : null,
    });
  }
  for (const status of combined.data.statuses) {
    const state = status.state === 'success' ? 'success' : status.state === 'pending' ? 'pending' : 'failure';
    checks.push({
      name: status.context,
      state,
      url: status.target_url ?? null,
      details: state === 'failure' ? cleanCiText(status.description, 'start') : null,
    });
  }
  const kept = checks.slice(0, CI_MAX_CHECKS);
  return { state: combineCiChecks(kept), checks: kept };
}
