import { Type } from 'typebox';
import { listProjects } from '../../modules/projects/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import { projectJson } from './json-shapes.ts';

export const projectsList = defineAdminCommand({
  name: 'projects list',
  input: Type.Object({}, { additionalProperties: false }),
  async run(db) {
    return (await listProjects(db)).map(projectJson);
  },
});
