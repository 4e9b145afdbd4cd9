import { defineErrors } from '../../errors/app-error.ts';

export const jobErrors = defineErrors({
  job_not_found: { status: 404, description: 'No job has this id in this project.' },
  job_active: {
    status: 409,
    description:
      'The job is still running: a follow-up or archive must wait until it ends (or cancel it first).',
  },
  job_not_active: {
    status: 409,
    description: 'Only an active job can be cancelled; this one has already ended.',
  },
  job_archived: {
    status: 409,
    description: 'The job is archived: it takes no follow-ups and cannot be archived again.',
  },
});
