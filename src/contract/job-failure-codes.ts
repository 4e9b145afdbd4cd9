// Why a job failed: the codes a failed job carries in error.code. Not HTTP errors (the job was
// created fine and failed later), but listed in the same registry and docs/errors.md.

export const JOB_FAILURE_CODES = {
  cancelled: 'A client cancelled the job (POST .../cancel); a running agent was stopped.',
  model_not_configured:
    'No model was configured for the project or the server (DOCWRIGHT_MODEL, or a provider API key is missing); the message names the variables to set.',
  model_error:
    "The model provider refused the request for a reason retrying cannot fix, or kept failing or keeping calls waiting past the model timeout until the retries ran out; the message is the provider's, without secrets.",
  worker_lost: 'The worker running the job stopped (crash, kill) too many times; the job was not finished.',
  limit_reached:
    "The agent hit a bound of its run (steps, tokens, wall time, or a repeated failing action) before changing any file. When files had changed, the work is published instead and the job completes, saying which bound stopped it. A spending bound (the project's jobCostCapUsd or monthlyBudgetUsd) fails the job whether or not files changed, after publishing what changed; the message names the bound.",
  repository_unavailable:
    'The repository could not be fetched (not found, unreachable, refused by the address policy for repository URLs, or the token cannot read it).',
  push_rejected:
    "The code host refused the push of the job's branch (e.g. a protected branch, or the branch changed meanwhile).",
  code_host_auth: 'The code host refused the token (missing, expired, or without the needed permissions).',
  pr_failed: 'The branch was pushed but the pull request could not be opened; the message names the cause.',
  docs_checks_failed:
    "The project's checks setting is block and the job's changes introduced docs problems (broken links, invalid MDX or front matter, pages missing from the navigation) that the agent did not fix; the branch was pushed, no pull request opened. GET .../job/{id}/checks lists them.",
  internal_error: 'An unexpected fault in docwright while running the job; the server log has the details.',
} as const;

export type JobFailureCode = keyof typeof JOB_FAILURE_CODES;
