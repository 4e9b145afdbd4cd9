// Every environment variable the server reads, declared once: its name, its type (a TypeBox
// schema with bounds and default), and what it means. loadConfig reads the environment through
// these declarations, `docwright --help` lists them, and scripts/generate-config-docs.ts writes
// docs/configuration.md's table from them.
//
// Besides JSON Schema's keywords a declaration may carry the facts in VariableFacts. A check that
// JSON Schema cannot say is a TypeBox refinement whose error text completes "<NAME> ...".
import { type TSchema, type TStringOptions, Type } from 'typebox';
import { PROVIDER_VARIABLES } from '../models/environment.ts';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../models/timeout.ts';

/** What a declaration says beyond JSON Schema, for the reader, --help and the docs. */
export interface VariableFacts {
  /** How a value is written, when the schema's type does not say it (`http(s) URL`). */
  written?: string;
  /** What leaving the variable unset means, when it has no default value. */
  whenUnset?: string;
  /** The value is never echoed in a problem or shown anywhere. */
  secret?: boolean;
  /** Markdown added after the description in docs/configuration.md only (links to other pages). */
  docsNote?: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A string that must pass `check`; `mustBe` completes the problem's sentence after the name. */
function checkedText(
  check: (value: string) => boolean,
  mustBe: string,
  options: TStringOptions & VariableFacts,
) {
  return Type.Refine(Type.String(options), check, () => mustBe);
}

export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const SECRET_KEY_PATTERN = /^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/;

/** The server's own variables, in the order --help and the docs list them. */
export const SERVER_VARIABLES = {
  PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 3000,
    description: 'TCP port of the HTTP server',
  }),
  HOST: Type.String({
    default: '127.0.0.1',
    description: 'Interface to listen on; use 0.0.0.0 in a container',
  }),
  DOCWRIGHT_DATA_DIR: Type.String({
    default: './.docwright',
    written: 'path',
    description: 'Directory for the embedded database, the generated secret key and work files',
  }),
  DATABASE_URL: Type.Optional(
    checkedText((v) => /^postgres(ql)?:\/\//.test(v), 'must start with postgres:// or postgresql://', {
      written: 'postgres://...',
      secret: true,
      whenUnset: 'the embedded PGlite database in the data directory',
      description: 'PostgreSQL connection string',
    }),
  ),
  DOCWRIGHT_SECRET_KEY: Type.Optional(
    checkedText(
      (v) => SECRET_KEY_PATTERN.test(v),
      'must be 32 bytes written as 64 hex characters or as base64',
      {
        written: '32 bytes as 64 hex characters or base64',
        secret: true,
        whenUnset: 'generated into the data directory (embedded database only)',
        description:
          'Encrypts stored secrets; every process sharing a PostgreSQL database needs the same key (make one with openssl rand -hex 32)',
      },
    ),
  ),
  LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((level) => Type.Literal(level)),
    { default: 'info', description: 'How much is logged; debug adds a line per HTTP request' },
  ),
  DOCWRIGHT_PUBLIC_URL: Type.Optional(
    checkedText(isHttpUrl, 'must be an http(s) URL', {
      written: 'http(s) URL',
      whenUnset: 'http://HOST:PORT',
      description: 'The URL users reach the server at, used in links',
    }),
  ),
  DOCWRIGHT_JOB_RATE_LIMIT: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 100,
    description: 'Job creations plus follow-up messages allowed per project per sliding hour',
  }),
  DOCWRIGHT_MODEL: Type.Optional(
    checkedText(
      (v) => /^[a-z][a-z0-9-]*:\S+$/.test(v),
      'must be written provider:model (e.g. openai:gpt-4.1)',
      {
        written: 'provider:model, e.g. anthropic:claude-sonnet-4-5',
        description: 'Default model for projects that set none',
      },
    ),
  ),
  DOCWRIGHT_MODEL_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: DEFAULT_MODEL_TIMEOUT_MS / 1000,
    description:
      'How long one model call may wait for the provider: for its whole answer, or, when answers are streamed, for the next part of it. A call that waits longer is cut and retried like a provider error',
  }),
  DOCWRIGHT_MODEL_PRICES_FILE: Type.Optional(
    Type.String({
      written: 'path',
      description:
        "A JSON price table ({prices: [...]}, the shape of data/model-prices.json) whose entries win over the built-in prices of model calls (docs/cost-and-budgets.md); a project's modelPrices setting wins over both",
    }),
  ),
  DOCWRIGHT_EXTRA_AGENT_LISTS: Type.Optional(
    Type.String({
      written: 'paths, comma-separated',
      description:
        'Extra AI-agent lists in the ai.robots.txt robots.json format, added after the curated list',
    }),
  ),
  DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description:
      'How often each server process checks the database for a newer synced AI-agent list or AI-referrer list and switches to it, without a restart',
  }),
  DOCWRIGHT_AGENT_LIST_SYNC_URL: Type.Optional(
    checkedText(isHttpUrl, 'must be an http(s) URL', {
      written: 'http(s) URL',
      whenUnset: 'no scheduled sync, docwright agents sync by hand',
      description:
        "docwright serve syncs the AI-agent list from this URL (ai.robots.txt's robots.json or docwright's format) at start and every DOCWRIGHT_AGENT_LIST_SYNC_HOURS",
      docsNote: 'See [traffic classification](traffic-classification.md#keeping-the-list-current).',
    }),
  ),
  DOCWRIGHT_REFERRER_LIST_SYNC_URL: Type.Optional(
    checkedText(isHttpUrl, 'must be an http(s) URL', {
      written: 'http(s) URL',
      whenUnset: 'no scheduled sync, docwright agents sync --referrers by hand',
      description:
        "docwright serve syncs the AI-referrer list (assistants whose answers send readers, in data/ai-referrers.json's format) from this URL at start and every DOCWRIGHT_AGENT_LIST_SYNC_HOURS",
      docsNote: 'See [AI referrals](analytics-referrals.md#keeping-the-list-current).',
    }),
  ),
  DOCWRIGHT_AGENT_LIST_SYNC_HOURS: Type.Integer({
    minimum: 1,
    maximum: 720,
    default: 24,
    description: 'Hours between scheduled syncs of the AI-agent list and the AI-referrer list',
  }),
  DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT: Type.Integer({
    minimum: 0,
    maximum: 100,
    default: 20,
    description:
      'A sync that would drop more than this percentage of the synced entries is refused and changes nothing',
  }),
  DOCWRIGHT_WORKER: Type.Boolean({
    default: true,
    description: 'Whether docwright serve also runs jobs; false: run docwright worker instead',
  }),
  DOCWRIGHT_WORKER_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'Jobs one worker runs at once',
  }),
  DOCWRIGHT_JOB_LEASE_SECONDS: Type.Integer({
    minimum: 3,
    maximum: 3600,
    default: 30,
    description:
      "How long a worker's claim on a job lasts without a heartbeat; a dead worker's job is taken again after it",
  }),
  DOCWRIGHT_JOB_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 3,
    description: 'Tries per job before it fails with worker_lost',
  }),
  DOCWRIGHT_METRICS_TOKEN: Type.Optional(
    checkedText((v) => v.length >= 16 && !/\s/.test(v), 'must be at least 16 characters without spaces', {
      written: 'at least 16 characters',
      secret: true,
      whenUnset: '/metrics is open',
      description: 'GET /metrics answers only requests with "Authorization: Bearer <token>"',
    }),
  ),
  DOCWRIGHT_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      whenUnset: 'no HTTP at all',
      description:
        'Port on which docwright worker serves GET /metrics, on HOST; docwright serve has /metrics on PORT',
    }),
  ),
  GITHUB_TOKEN: Type.Optional(
    Type.String({
      secret: true,
      description: 'Token for GitHub projects that store no codeHostToken of their own',
    }),
  ),
  GITLAB_TOKEN: Type.Optional(
    Type.String({
      secret: true,
      description: 'Token for GitLab projects that store no codeHostToken of their own',
    }),
  ),
  GITEA_TOKEN: Type.Optional(
    Type.String({
      secret: true,
      description: 'Token for Gitea/Forgejo projects that store no codeHostToken of their own',
    }),
  ),
  DOCWRIGHT_GIT_AUTHOR_NAME: Type.String({
    default: 'docwright',
    description: "Name on the agent's commits",
  }),
  DOCWRIGHT_GIT_AUTHOR_EMAIL: checkedText(
    (v) => /^[^<>\s@]+@[^<>\s@]+$/.test(v),
    'must be an email address',
    {
      default: 'docwright@users.noreply.invalid',
      written: 'email address',
      description: "Email on the agent's commits",
    },
  ),
  DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'true lets webhooks reach loopback, private, link-local and other special-purpose addresses; false refuses them, so a webhook URL cannot reach internal services',
  }),
  DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'true lets repository URLs use http and point at loopback, private, link-local and other special-purpose addresses, e.g. a local git server; false allows https and public addresses only, so a repository URL cannot reach internal services',
    docsNote: 'See [security.md](security.md#outgoing-requests-to-addresses-users-choose).',
  }),
  DOCWRIGHT_TRUSTED_PROXIES: Type.Optional(
    Type.String({
      written: 'addresses, ranges (10.0.0.0/8), loopback, linklocal or uniquelocal, comma-separated',
      whenUnset: 'X-Forwarded-For is ignored',
      description:
        'The reverse proxies in front of docwright: a request from one of them counts as coming from the client address it gives in X-Forwarded-For',
    }),
  ),
};

/**
 * The model providers' variables (ANTHROPIC_API_KEY, ...), declared from the provider table in
 * src/models so that adding a provider adds its variables here. A base URL's default is the
 * provider library's, said in its description.
 */
export const MODEL_VARIABLES: Record<string, TSchema> = Object.fromEntries(
  Object.values(PROVIDER_VARIABLES).flatMap((vars) => [
    [
      vars.apiKey.name,
      Type.Optional(Type.String({ secret: true, description: sentence(vars.apiKey.description) })),
    ],
    [vars.baseURL.name, Type.Optional(Type.String({ description: sentence(vars.baseURL.description) }))],
  ]),
);

/** Every variable the server reads: what --help and docs/configuration.md list. */
export const CONFIG_VARIABLES: Record<string, TSchema> = { ...SERVER_VARIABLES, ...MODEL_VARIABLES };

/** A description as declared here: without its final full stop, which the renderings add. */
function sentence(text: string): string {
  return text.replace(/\.$/, '');
}
