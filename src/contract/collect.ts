// The browser script's page view (POST /v1/analytics/{projectId}/collect) and its answer.
import { Type } from 'typebox';

export const CollectBodySchema = Type.Object(
  {
    path: Type.Optional(Type.String({ maxLength: 4096, description: 'The page path (location.pathname).' })),
    url: Type.Optional(Type.String({ maxLength: 8192, description: 'The page URL, when no path is given.' })),
    referrer: Type.Optional(
      Type.String({
        maxLength: 4096,
        description:
          'document.referrer on the first view (not stored: only the AI assistant it names, if any, is counted).',
      }),
    ),
    utmSource: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          "The page URL's utm_source on the first view (not stored: only the AI assistant it names).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CollectResultSchema = Type.Object({
  counted: Type.Boolean({ description: 'Whether the view was counted (human, AI or bot).' }),
  dropped: Type.Optional(
    Type.String({ description: 'Why it was not counted: a drop reason of the classification pipeline.' }),
  ),
});
