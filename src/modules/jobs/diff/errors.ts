import { defineErrors } from '../../../errors/app-error.ts';

export const jobDiffErrors = defineErrors({
  job_diff_not_found: {
    status: 404,
    description:
      'The job has no stored diff: it is still running, changed no file, or failed before committing; the message says which.',
  },
});
