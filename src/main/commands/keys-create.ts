import { Type } from 'typebox';
import { createKey, keyErrors } from '../../modules/keys/index.ts';
import { defineAdminCommand } from './admin-command.ts';
import type { CreatedKeyJson } from './json-shapes.ts';

export const keysCreate = defineAdminCommand({
  name: 'keys create',
  input: Type.Object(
    {
      projectId: Type.String(),
      name: Type.Optional(Type.String()),
      scope: Type.Optional(Type.String()),
      /** An ISO 8601 time; the CLI turns "30d" into one before sending, so the clock is the caller's. */
      expiresAt: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  async run(db, input): Promise<CreatedKeyJson> {
    let expiresAt: Date | null = null;
    if (input.expiresAt !== undefined) {
      expiresAt = new Date(input.expiresAt);
      if (Number.isNaN(expiresAt.getTime())) {
        throw keyErrors.invalid_key_request(`expiry must be an ISO 8601 time; got "${input.expiresAt}".`);
      }
    }
    const created = await createKey(db, {
      projectId: input.projectId,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.scope !== undefined ? { scope: input.scope } : {}),
      expiresAt,
    });
    return {
      id: created.id,
      key: created.key,
      projectId: created.projectId,
      name: created.name,
      scope: created.scope,
      prefix: created.prefix,
      createdAt: created.createdAt.toISOString(),
      expiresAt: created.expiresAt === null ? null : created.expiresAt.toISOString(),
    };
  },
});
