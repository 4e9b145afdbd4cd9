import { defineErrors } from '../../errors/app-error.ts';

export const projectErrors = defineErrors({
  project_not_found: { status: 404, description: 'No project has this id (CLI and admin operations).' },
  invalid_project: {
    status: 400,
    description:
      'A project field is missing or malformed (name, repository URL, ref, code host, model, settings).',
  },
});
