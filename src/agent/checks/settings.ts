// A job's docs checks as its project's settings ask: checks (off | warn | block, default warn)
// and docsFramework (auto, or the framework to assume).
import { DOCS_FRAMEWORKS, type DocsFramework } from '../../docs-checks/index.ts';
import type { JobRunInput } from '../../modules/jobs/index.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';
import { type DocsChecksMode, JobDocsChecks } from './job-checks.ts';

export const DEFAULT_DOCS_CHECKS_MODE: DocsChecksMode = 'warn';

export function jobDocsChecks(input: JobRunInput, opening: Promise<JobWorkspace>): JobDocsChecks | null {
  const { project, job } = input;
  const mode = project.settings.checks ?? DEFAULT_DOCS_CHECKS_MODE;
  if (mode === 'off') return null;
  const forced: string | undefined = project.settings.docsFramework;
  const framework = DOCS_FRAMEWORKS.find((name): name is DocsFramework => name === forced);
  return new JobDocsChecks({
    mode,
    ...(framework ? { framework } : {}),
    repository: job.source_repository,
    opening,
    event: (type, data) => input.event(type, data),
  });
}
