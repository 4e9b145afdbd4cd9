// For a job a code_change automation run started: the watched code repository at the run's
// commit, in this data directory's code mirror (fetched if the automation worker that read it ran
// elsewhere), for the read-only code tools. Null for every other job: they get no code tools.
import type { CodeHost, CodeHostOptions } from '../../code-hosts/contract.ts';
import type { Database } from '../../db/database.ts';
import { type JobRunInput, readJobCodeSource } from '../../modules/jobs/index.ts';
import type { CodeMirrors } from '../code-source/code-mirror.ts';
import { codeRepositoryAuthorization } from '../code-source/read-code-change.ts';
import type { CredentialsConfig } from '../job-credentials.ts';
import type { CodeToolSource } from '../tools/code-tools.ts';

export async function openCodeSource(
  input: JobRunInput,
  db: Database,
  config: CredentialsConfig,
  mirrors: CodeMirrors,
  makeCodeHost: (options: CodeHostOptions) => CodeHost,
): Promise<CodeToolSource | null> {
  const source = await readJobCodeSource(db, input.job.id);
  if (source === null) return null;
  const authorization = await codeRepositoryAuthorization(
    db,
    config,
    input.project,
    source,
    makeCodeHost,
    input.signal,
  );
  const commit = await mirrors.ensure({
    url: source.repositoryUrl,
    authorization,
    commit: source.commit,
    signal: input.signal,
  });
  return { mirrorPath: commit.mirrorPath, commit: commit.commit, repository: source.repository };
}
