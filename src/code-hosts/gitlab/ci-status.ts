// A commit's CI status on GitLab: its newest pipeline (GET /projects/:id/pipelines?sha=, newest
// first) and that pipeline's jobs (GET /projects/:id/pipelines/:pipeline_id/jobs, retried jobs
// left out), each job a check. The details of a failed job are the end of its log (GET
// /projects/:id/jobs/:job_id/trace), for the first few failed jobs; a pipeline that failed
// without jobs (an invalid .gitlab-ci.yml) is reported as one check named after the pipeline.
import type { Gitlab } from '@gitbeaker/rest';
import {
  CI_MAX_CHECKS,
  CI_MAX_DETAILED_FAILURES,
  type CiCheck,
  type CiStatus,
  cleanCiText,
  combineCiChecks,
} from '../ci.ts';

type GitlabClient = InstanceType<typeof Gitlab<false>>;
type Call = <T>(action: string, send: (api: GitlabClient) => Promise<T>) => Promise<T>;

const PENDING = new Set(['created', 'pending', 'running', 'waiting_for_resource', 'preparing', 'scheduled']);
const PASSED = new Set(['success', 'skipped', 'manual']);

function stateOf(status: string, allowFailure: boolean): CiCheck['state'] {
  if (PENDING.has(status)) return 'pending';
  if (PASSED.has(status)) return 'success';
  if (status === 'failed' && allowFailure) return 'success';
  return 'failure'; // failed, canceled
}

export async function readGitLabCiStatus(call: Call, project: string, sha: string): Promise<CiStatus> {
  const short = sha.slice(0, 12);
  const pipelines = await call(`list the pipelines of commit ${short} in ${project}`, (api) =>
    api.Pipelines.all(project, { sha, orderBy: 'id', sort: 'desc', perPage: 20, maxPages: 1 }),
  );
  const pipeline = [...pipelines].sort((a, b) => b.id - a.id)[0];
  if (!pipeline) return { state: 'none', checks: [] };
  const jobs = await call(`list the jobs of pipeline ${pipeline.id} in ${project}`, (api) =>
    api.Jobs.all(project, { pipelineId: pipeline.id, perPage: 100, maxPages: 1 }),
  );
  const checks: CiCheck[] = jobs.slice(0, CI_MAX_CHECKS).map((job) => ({
    name: job.name,
    state: stateOf(job.status, job.allow_failure === true),
    url: typeof job.web_url === 'string' ? job.web_url : null,
    details: null,
  }));
  if (checks.length === 0) {
    const state = stateOf(pipeline.status, false);
    checks.push({
      name: `pipeline #${pipeline.id}`,
      state,
      url: pipeline.web_url ?? null,
      details: state === 'failure' ? `The pipeline ${pipeline.status} without running a job.` : null,
    });
    return { state: combineCiChecks(checks), checks };
  }
  const failed = checks
    .map((check, i) => ({ check, job: jobs[i]! }))
    .filter(({ check }) => check.state === 'failure')
    .slice(0, CI_MAX_DETAILED_FAILURES);
  await Promise.all(
    failed.map(async ({ check, job }) => {
      const reason = typeof job.failure_reason === 'string' ? `(${job.failure_reason}) ` : '';
      try {
        const log = await call(`read the log of job ${job.id} in ${project}`, (api) =>
          api.Jobs.showLog(project, job.id),
        );
        check.details = cleanCiText(`${reason}\n${typeof log === 'string' ? log : ''}`, 'end');
      } catch {
        // The log may be gone (erased, expired) or not readable with this token: the job's
        // status and failure reason still say what failed.
        check.details = reason.trim() || null;
      }
    }),
  );
  return { state: combineCiChecks(checks), checks };
}
