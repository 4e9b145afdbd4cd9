// A project's shape as the service and the CLI see it, and its settings with their defaults.
import { type Static, Type } from 'typebox';

export const CODE_HOST_KINDS = ['github', 'gitlab', 'gitea'] as const;
export type CodeHostKind = (typeof CODE_HOST_KINDS)[number];

const PricePerMillion = (description: string) =>
  Type.Number({ minimum: 0, maximum: 1_000_000, description: `${description}, USD per million tokens.` });

/**
 * One price of a model (data/model-prices.json, the deployment's DOCWRIGHT_MODEL_PRICES_FILE, a
 * project's modelPrices). Cache prices default to the input price when left out.
 */
export const ModelPriceSchema = Type.Object(
  {
    provider: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'anthropic, openai, openai-compatible.',
    }),
    model: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[^\\u0000-\\u001f]+$',
      description: 'The model id, or a pattern where * stands for any characters ("*" alone: every model).',
    }),
    inputPerMillion: PricePerMillion('Input tokens neither read from nor written into the cache'),
    outputPerMillion: PricePerMillion('Output tokens'),
    cacheReadPerMillion: Type.Optional(PricePerMillion('Input tokens read from the prompt cache')),
    cacheWritePerMillion: Type.Optional(PricePerMillion('Input tokens written into the prompt cache')),
    currency: Type.Optional(Type.Literal('USD', { description: 'Only USD is supported.' })),
    source: Type.Optional(Type.String({ maxLength: 2000, description: 'Where the price comes from.' })),
    takenOn: Type.Optional(
      Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'When it was taken, YYYY-MM-DD.' }),
    ),
  },
  { additionalProperties: false },
);
export type ModelPrice = Static<typeof ModelPriceSchema>;

const Usd = (description: string) => Type.Number({ minimum: 0, maximum: 1_000_000_000, description });

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
    codeHostBotLogin: Type.Optional(
      Type.String({
        pattern: '^@?[A-Za-z0-9][A-Za-z0-9_.-]*(\\[bot\\])?$',
        maxLength: 200,
        description:
          "The code-host account docwright acts as (the token's user, or a GitHub App's <slug>[bot]): its comments on docwright's pull requests start no review_comment run.",
      }),
    ),
    allowedOrigins: Type.Optional(
      // scheme://host[:port] only: no user, path, query or fragment (collect/origins.ts).
      Type.Array(Type.String({ pattern: '^https?://[^\\s/?#@\\\\]+$' }), {
        description: 'Origins allowed to send page views from the browser script.',
      }),
    ),
    monthlyBudgetUsd: Type.Optional(
      Usd(
        'What the project may spend on models per UTC month, in US dollars: jobs are refused once it is spent, and a running job stops at its next step (docs/cost-and-budgets.md).',
      ),
    ),
    jobCostCapUsd: Type.Optional(
      Usd('What one job may spend over all its runs, in US dollars: the job stops at its next step past it.'),
    ),
    modelPrices: Type.Optional(
      Type.Array(ModelPriceSchema, {
        maxItems: 100,
        description:
          "Prices that win over the server's price table for this project's jobs (e.g. 0 for a self-hosted model).",
      }),
    ),
    checks: Type.Optional(
      Type.Union([Type.Literal('off'), Type.Literal('warn'), Type.Literal('block')], {
        description:
          'Docs checks before publishing (default warn): warn opens a pull request whose changes broke the docs as a draft listing the problems; block opens none and fails the job (docs_checks_failed); off skips them.',
      }),
    ),
    docsFramework: Type.Optional(
      Type.Union(
        ['auto', 'mintlify', 'docusaurus', 'mkdocs', 'vitepress', 'starlight', 'markdown'].map((name) =>
          Type.Literal(name),
        ),
        {
          description:
            'The docs framework the checks assume (default auto: detected from the repository); markdown checks pages as plain Markdown, without a navigation.',
        },
      ),
    ),
    ci: Type.Optional(
      Type.Union([Type.Literal('off'), Type.Literal('watch'), Type.Literal('fix')], {
        description:
          "CI on the job's pull request (default off; docs/ci-follow-up.md): watch polls the code host for the checks of the commit the job pushed and records how they ended (job events, GET .../job/{id}/ci); fix also sends the job a follow-up naming the failed checks, at most ciMaxFollowUps times per job.",
      }),
    ),
    ciMaxFollowUps: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        description: 'With ci fix: the most follow-ups failed checks send one job (default 2).',
      }),
    ),
    ciWatchMinutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1440,
        description:
          'How long the checks of one pushed commit are watched before the watch ends as timed_out (default 30).',
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
