import { defineErrors } from '../../errors/app-error.ts';

export const keyErrors = defineErrors({
  key_not_found: { status: 404, description: 'No API key has this id (CLI and admin operations).' },
  invalid_key_request: {
    status: 400,
    description: 'A field of a new API key is malformed: name, scope (admin, read, ingest) or expiry.',
  },
});
