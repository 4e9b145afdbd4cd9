// A commit's CI status on Gitea and Forgejo: its commit statuses, the latest per context (GET
// /repos/{owner}/{repo}/commits/{ref}/status, the combined status), which Gitea Actions and
// external CI services (Woodpecker, Drone, Jenkins...) write. Gitea keeps no logs of external
// CI, so a failed status's details are its description; its target_url is the check's url.
import type { giteaApi } from 'gitea-js';
import { CI_MAX_CHECKS, type CiCheck, type CiStatus, cleanCiText, combineCiChecks } from '../ci.ts';

type GiteaClient = ReturnType<typeof giteaApi>;
type Call = <T>(
  action: string,
  send: (api: GiteaClient, params: { signal: AbortSignal }) => Promise<T>,
) => Promise<T>;

function stateOf(status: string | undefined): CiCheck['state'] {
  if (status === 'success' || status === 'warning') return 'success';
  if (status === 'error' || status === 'failure') return 'failure';
  return 'pending';
}

export async function readGiteaCiStatus(
  call: Call,
  owner: string,
  repo: string,
  sha: string,
): Promise<CiStatus> {
  const { data } = await call(
    `read the commit status of ${sha.slice(0, 12)} in ${owner}/${repo}`,
    (api, params) => api.repos.repoGetCombinedStatusByRef(owner, repo, sha, { limit: 50 }, params),
  );
  const checks: CiCheck[] = (data.statuses ?? []).slice(0, CI_MAX_CHECKS).map((status) => {
    const state = stateOf(status.status);
    return {
      name: status.context || 'status',
      state,
      url: status.target_url || null,
      details: state === 'failure' ? cleanCiText(status.description, 'start') : null,
    };
  });
  return { state: combineCiChecks(checks), checks };
}
