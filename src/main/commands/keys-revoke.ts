import { Type } from 'typebox';
import { revokeKey } from '../../modules/keys/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import { keyJson } from './json-shapes.ts';

export const keysRevoke = defineAdminCommand({
  name: 'keys revoke',
  input: Type.Object({ id: Type.String() }, { additionalProperties: false }),
  async run(db, input) {
    return keyJson(await revokeKey(db, input.id));
  },
});
