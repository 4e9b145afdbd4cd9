import { Type } from 'typebox';
import { createProject } from '../../modules/projects/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import { projectJson } from './json-shapes.ts';
import { projectFieldSchemas as f } from './project-fields.ts';

export const projectsCreate = defineAdminCommand({
  name: 'projects create',
  input: Type.Object(
    {
      name: f.name,
      repositoryUrl: f.repositoryUrl,
      ref: Type.Optional(f.ref),
      codeHostKind: Type.Optional(f.codeHostKind),
      codeHostBaseUrl: Type.Optional(f.codeHostBaseUrl),
      codeHostApiUrl: Type.Optional(f.codeHostApiUrl),
      model: Type.Optional(f.model),
    },
    { additionalProperties: false },
  ),
  async run(db, input, context) {
    return projectJson(await createProject(db, input, context.repositories));
  },
});
