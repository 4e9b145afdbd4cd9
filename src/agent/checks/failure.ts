// The job failure of a blocked publish: the checks found problems the job introduced and the
// project's checks setting is block. The branch is pushed; no pull request is opened.
export class DocsChecksFailure extends Error {
  readonly code = 'docs_checks_failed' as const;
}
