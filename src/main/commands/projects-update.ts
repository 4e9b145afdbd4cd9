import { Type } from 'typebox';
import type { ProjectChanges, ProjectSettings } from '../../modules/projects/index.ts';
import { suspendedSecrets, updateProject } from '../../modules/projects/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import { projectJson } from './json-shapes.ts';
import { projectFieldSchemas as f } from './project-fields.ts';

export const projectsUpdate = defineAdminCommand({
  name: 'projects update',
  input: Type.Object(
    {
      id: Type.String(),
      name: Type.Optional(f.name),
      repositoryUrl: Type.Optional(f.repositoryUrl),
      ref: Type.Optional(f.ref),
      codeHostKind: Type.Optional(f.codeHostKind),
      codeHostBaseUrl: Type.Optional(f.codeHostBaseUrl),
      codeHostApiUrl: Type.Optional(f.codeHostApiUrl),
      model: Type.Optional(f.model),
      /** Merged key by key into the stored settings; null removes a key. The service checks them. */
      settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
  async run(db, { id, settings, ...fields }, context) {
    const changes: ProjectChanges = { ...fields };
    if (settings !== undefined) changes.settings = settings as ProjectSettings;
    const project = projectJson(await updateProject(db, id, changes, context.repositories));
    const suspended = await suspendedSecrets(db, id);
    return {
      ...project,
      suspendedSecrets: suspended.map((s) => ({ name: s.name, storedFor: s.suspendedFor ?? '' })),
    };
  },
});
