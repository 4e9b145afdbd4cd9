// The first phase of a run: what the job runs with. The model (the job's, with the project's key
// or the server's) and the code host (its adapter with the credential for this repository, after
// the address policy and the credential's binding are checked: job-credentials.ts), then git's
// authorization for the repository. Read per job, so a changed secret applies to the next job.
import type { CodeHost, CodeHostOptions } from '../../code-hosts/contract.ts';
import type { Database } from '../../db/database.ts';
import type { ModelOptions, ResolvedModel } from '../../models/providers.ts';
import type { JobRunInput } from '../../modules/jobs/index.ts';
import { codeHostOptionsOf } from '../code-host-options.ts';
import { type CredentialsConfig, jobCodeHostCredentials, jobModel } from '../job-credentials.ts';

export interface RunCredentials {
  model: ResolvedModel;
  codeHost: CodeHost;
  /** The value of git's Authorization header for the repository (without the header's name). */
  authorization: string;
}

export async function readRunCredentials(
  input: JobRunInput,
  db: Database,
  config: CredentialsConfig & { modelTimeoutMs: number },
  model: ModelOptions | undefined,
  makeCodeHost: (options: CodeHostOptions) => CodeHost,
): Promise<RunCredentials> {
  const { job, project, signal } = input;
  // Read at once (each is a secret's read and decryption; the code host's also an address check),
  // and reported in this order when both fail.
  const [modelRead, hostRead] = await Promise.allSettled([
    jobModel(db, config, project, job.model, {
      timeoutMs: config.modelTimeoutMs,
      ...model,
      // A retried model call is shown on the job's event stream; a failed write of it is not the job's.
      onRetry: (retry) => void input.event('model_retry', { ...retry }).catch(() => {}),
    }),
    jobCodeHostCredentials(db, config, project, job.source_repository),
  ]);
  if (modelRead.status === 'rejected') throw modelRead.reason;
  if (hostRead.status === 'rejected') throw hostRead.reason;
  const { resolved } = modelRead.value;
  const codeHost = makeCodeHost(codeHostOptionsOf(project, hostRead.value));
  const header = await codeHost.gitAuthHeader(signal);
  return { model: resolved, codeHost, authorization: header.replace(/^Authorization:\s*/i, '') };
}
