// How the CI watcher (src/modules/jobs/ci) asks a project's code host for a commit's checks: the
// project's adapter with the credentials a job of it would use (job-credentials.ts: the address
// policy and the secret's binding are checked on every poll, so a changed or revoked secret
// applies at once), without the adapter's in-call retries (the watcher polls again anyway).
// Adapters are kept per project while its settings and credentials stay the same, so a GitHub
// App's installation token is reused across polls rather than fetched for each one.
import { createHash } from 'node:crypto';
import type { CodeHost, CodeHostOptions } from '../../code-hosts/contract.ts';
import { createCodeHost } from '../../code-hosts/factory.ts';
import type { Database } from '../../db/database.ts';
import type { ReadCiStatus } from '../../modules/jobs/index.ts';
import { codeHostOptionsOf } from '../code-host-options.ts';
import { type CredentialsConfig, jobCodeHostCredentials } from '../job-credentials.ts';

/** Adapters kept at most; the oldest goes first. */
const MAX_KEPT = 200;

export function createCiStatusReader(options: {
  db: Database;
  config: CredentialsConfig;
  /** Builds the adapter; tests point it at their fakes. */
  codeHost?: (options: CodeHostOptions) => CodeHost;
}): ReadCiStatus {
  const make = options.codeHost ?? createCodeHost;
  const kept = new Map<string, { fingerprint: string; host: CodeHost }>();
  return async (project, target, signal) => {
    const credentials = await jobCodeHostCredentials(
      options.db,
      options.config,
      project,
      target.repositoryUrl,
    );
    const hostOptions: CodeHostOptions = {
      ...codeHostOptionsOf(project, credentials),
      retry: { attempts: 1 },
    };
    const fingerprint = createHash('sha256').update(JSON.stringify(hostOptions)).digest('hex');
    let entry = kept.get(project.id);
    if (entry?.fingerprint !== fingerprint) {
      entry = { fingerprint, host: make(hostOptions) };
      kept.delete(project.id);
      if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
      kept.set(project.id, entry);
    }
    return entry.host.ciStatus({ repositoryUrl: target.repositoryUrl, sha: target.headSha, signal });
  };
}
