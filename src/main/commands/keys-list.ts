import { Type } from 'typebox';
import { listKeys } from '../../modules/keys/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import { keyJson } from './json-shapes.ts';

export const keysList = defineAdminCommand({
  name: 'keys list',
  input: Type.Object({ projectId: Type.String() }, { additionalProperties: false }),
  async run(db, input) {
    return (await listKeys(db, input.projectId)).map(keyJson);
  },
});
