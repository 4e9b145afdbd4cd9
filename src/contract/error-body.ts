// The body of every 4xx and 5xx answer (docs/errors.md).
import { type Static, Type } from 'typebox';

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for people.' }),
    code: Type.String({ description: 'Stable machine-readable code; see docs/errors.md.' }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          location: Type.Optional(Type.String()),
          name: Type.Optional(Type.String()),
          message: Type.String(),
        }),
      ),
    ),
    requestId: Type.String({
      description: 'Quote it when reporting a problem; also in the x-request-id header.',
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];
