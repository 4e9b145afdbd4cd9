// Setting, listing and removing a project's sealed secrets. The value travels in the command's
// input only (never argv, never a log line: the control socket logs command names only).
import { Type } from 'typebox';
import { deleteProjectSecret, listProjectSecrets, setProjectSecret } from '../../modules/projects/index.ts';
import { defineAdminCommand } from './admin-command.ts';

export const projectsSetSecret = defineAdminCommand({
  name: 'projects set-secret',
  input: Type.Object(
    { projectId: Type.String(), name: Type.String(), value: Type.String() },
    { additionalProperties: false },
  ),
  async run(db, input, context) {
    await setProjectSecret(db, context.secretKey, input.projectId, input.name, input.value);
    return { projectId: input.projectId, name: input.name, set: true };
  },
});

export const projectsListSecrets = defineAdminCommand({
  name: 'projects secrets',
  input: Type.Object({ projectId: Type.String() }, { additionalProperties: false }),
  async run(db, input) {
    const secrets = await listProjectSecrets(db, input.projectId);
    return secrets.map((s) => ({
      name: s.name,
      updatedAt: s.updatedAt.toISOString(),
      ...(s.suspendedFor !== null ? { suspendedFor: s.suspendedFor } : {}),
    }));
  },
});

export const projectsUnsetSecret = defineAdminCommand({
  name: 'projects unset-secret',
  input: Type.Object({ projectId: Type.String(), name: Type.String() }, { additionalProperties: false }),
  async run(db, input) {
    return {
      projectId: input.projectId,
      name: input.name,
      removed: await deleteProjectSecret(db, input.projectId, input.name),
    };
  },
});
