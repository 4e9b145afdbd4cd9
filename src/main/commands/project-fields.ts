// The project fields a command may set, as a schema for input arriving on the control socket.
import { Type } from 'typebox';
import { CODE_HOST_KINDS } from '../../modules/projects/index.ts';

export const CodeHostKindSchema = Type.Union(CODE_HOST_KINDS.map((kind) => Type.Literal(kind)));

export const projectFieldSchemas = {
  name: Type.String(),
  repositoryUrl: Type.String(),
  ref: Type.String(),
  codeHostKind: CodeHostKindSchema,
  /** An empty string clears it. */
  codeHostBaseUrl: Type.String(),
  /** An empty string clears it (the API root is derived from the base URL again). */
  codeHostApiUrl: Type.String(),
  /** An empty string clears it (the server default applies). */
  model: Type.String(),
};
