// A project's shape as the service and the CLI see it, and its settings with their defaults.
import { type Static, Type } from 'typebox';

export const CODE_HOST_KINDS = ['github', 'gitlab', 'gitea'] as const;
export type CodeHostKind = (typeof CODE_HOST_KINDS)[number];

/**
 * Per-project settings, stored as JSON. Every field is optional: an absent field means the
 * server default, so defaults can improve without rewriting stored projects.
 */
export const ProjectSettingsSchema = Type.Object(
  {
    draftPullRequests: Type.Optional(
      Type.Boolean({ description: 'Open pull requests as drafts (default false).' }),
    ),
    deniedPaths: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Globs the agent may not touch, added to .git/** and .github/workflows/**.',
      }),
    ),
    maxSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    maxTotalTokens: Type.Optional(Type.Integer({ minimum: 1000 })),
    wallTimeSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400 })),
    githubAppId: Type.Optional(
      Type.String({
        pattern: '^[0-9]+$',
        description: 'GitHub App id, when the project pushes as a GitHub App.',
      }),
    ),
    githubAppInstallationId: Type.Optional(
      Type.String({
        pattern: '^[0-9]+$',
        description: "The App's installation id on the repository's owner.",
      }),
    ),
    allowedOrigins: Type.Optional(
      // scheme://host[:port] only: no user, path, query or fragment (collect/origins.ts).
      Type.Array(Type.String({ pattern: '^https?://[^\\s/?#@\\\\]+$' }), {
        description: 'Origins allowed to send page views from the browser script.',
      }),
    ),
    webhookUrl: Type.Optional(
      Type.String({
        // http(s), a host, no user:password@ (settings are not secret; the webhookSecret is).
        pattern: '^https?://[^\\s/?#@]+([/?#]\\S*)?$',
        maxLength: 2000,
        description:
          'Where job webhooks are POSTed (completed, failed, archived, pull request opened), signed with the webhookSecret secret.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProjectSettings = Static<typeof ProjectSettingsSchema>;

export interface Project {
  id: string;
  name: string;
  repositoryUrl: string;
  ref: string;
  /** apiUrl: the API root called as is, when it is not where baseUrl implies (null: derived). */
  codeHost: { kind: CodeHostKind; baseUrl: string | null; apiUrl: string | null };
  model: string | null;
  settings: ProjectSettings;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewProject {
  name: string;
  repositoryUrl: string;
  ref?: string;
  codeHostKind?: CodeHostKind;
  codeHostBaseUrl?: string | null;
  codeHostApiUrl?: string | null;
  model?: string | null;
  settings?: ProjectSettings;
}

export type ProjectChanges = Partial<NewProject>;
