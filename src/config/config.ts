// The server's configuration, read from environment variables once at start. Nothing else in
// docwright reads process.env: entry points call loadConfig() and pass the result down.
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import {
  credentialsFromEnvironment,
  modelEnvironmentVariables,
  type ProviderCredentials,
} from '../models/environment.ts';
import type { ModelProvider } from '../models/model-spec.ts';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../models/timeout.ts';
import { parseTrustedProxies } from './trusted-proxies.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  port: number;
  host: string;
  /** Absolute path; holds the embedded database, the generated secret key and work files. */
  dataDir: string;
  /** PostgreSQL connection string, or null for the embedded PGlite database in dataDir. */
  databaseUrl: string | null;
  /** 32 bytes; encrypts the secrets docwright stores (code-host tokens, model keys). */
  secretKey: Buffer;
  /** Where the key came from, for the start-up banner (never the key itself). */
  secretKeySource: 'environment' | 'data-dir';
  logLevel: LogLevel;
  /** The address users reach the server at, for links; defaults to http://HOST:PORT. */
  publicUrl: string;
  /** Job creations plus follow-ups allowed per project in any sliding hour. */
  jobRateLimitPerHour: number;
  /** Model used by projects that set none, written provider:model; null when unset. */
  defaultModel: string | null;
  /** API keys and base URLs per model provider (ANTHROPIC_API_KEY, ...). */
  modelCredentials: Record<ModelProvider, ProviderCredentials>;
  /** How long one model call may wait for the provider before it is cut and retried. */
  modelTimeoutMs: number;
  worker: WorkerConfig;
  /** Server-wide code-host tokens, used by projects that store none of their own. */
  codeHostTokens: { github: string | null; gitlab: string | null; gitea: string | null };
  /** Who the agent's commits are by. */
  gitAuthor: { name: string; email: string };
  /** Absolute paths of extra AI-agent lists in the ai.robots.txt robots.json format. */
  extraAgentLists: string[];
  agentList: AgentListConfig;
  metrics: MetricsConfig;
  webhooks: WebhooksConfig;
  repositories: RepositoriesConfig;
  /** Proxies whose X-Forwarded-For is believed (addresses, ranges, loopback...); empty: none. */
  trustedProxies: string[];
}

export interface AgentListConfig {
  /** How often each process checks the database for a newer synced agent list. */
  refreshMs: number;
  /** Where the server syncs the list from on a schedule; null: no scheduled sync. */
  syncUrl: string | null;
  syncIntervalMs: number;
  /** 0..1: the share of synced entries a sync may drop before it is refused. */
  maxDropShare: number;
}

export interface WebhooksConfig {
  /** Let webhook deliveries reach loopback, private and link-local addresses (off: SSRF guard). */
  allowPrivateAddresses: boolean;
}

export interface RepositoriesConfig {
  /**
   * Let repository URLs be http and point at loopback, private and other special-purpose
   * addresses (local git servers in tests and development); off: https and public addresses only.
   */
  allowPrivateAddresses: boolean;
}

export interface MetricsConfig {
  /** When set, GET /metrics wants it as a bearer token; null: /metrics is open. */
  token: string | null;
  /** Where `docwright worker` serves /metrics (it has no API to serve it on); null: nowhere. */
  workerPort: number | null;
}

export interface WorkerConfig {
  /** Whether `docwright serve` also runs a job worker (a separate `docwright worker` always does). */
  inServe: boolean;
  concurrency: number;
  leaseMs: number;
  maxAttempts: number;
}

/** All problems found, each naming its variable, so an operator fixes them in one go. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export const CONFIG_VARIABLES = {
  PORT: 'TCP port of the HTTP server (default 3000).',
  HOST: 'Interface to listen on (default 127.0.0.1; use 0.0.0.0 in a container).',
  DOCWRIGHT_DATA_DIR:
    'Directory for the embedded database, the generated secret key and work files (default ./.docwright).',
  DATABASE_URL:
    'PostgreSQL connection string (postgres://...). When set, the embedded PGlite database is not used.',
  DOCWRIGHT_SECRET_KEY:
    '32 bytes as 64 hex characters or base64; encrypts stored secrets. Generated into the data directory on the embedded default when absent; required with DATABASE_URL so that every process shares it.',
  LOG_LEVEL: 'fatal, error, warn, info (default), debug (adds a line per HTTP request), trace or silent.',
  DOCWRIGHT_PUBLIC_URL: 'The URL users reach the server at, used in links (default http://HOST:PORT).',
  DOCWRIGHT_JOB_RATE_LIMIT:
    'Job creations plus follow-up messages allowed per project per sliding hour (default 100).',
  DOCWRIGHT_MODEL:
    'Default model for projects that set none, written provider:model (e.g. anthropic:claude-sonnet-4-5).',
  DOCWRIGHT_MODEL_TIMEOUT_SECONDS:
    'How long one model call may wait for the provider: for its whole answer, or, when answers are streamed, for the next part of it. A call that waits longer is cut and retried like a provider error (default 300).',
  DOCWRIGHT_EXTRA_AGENT_LISTS:
    'Comma-separated paths of extra AI-agent lists in the ai.robots.txt robots.json format, added after the curated list.',
  DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS:
    'How often each server process checks the database for a newer synced AI-agent list and switches to it (default 30).',
  DOCWRIGHT_AGENT_LIST_SYNC_URL:
    'When set, docwright serve syncs the AI-agent list from this http(s) URL (robots.json or docwright format) on a schedule (default: unset, no scheduled sync; use docwright agents sync).',
  DOCWRIGHT_AGENT_LIST_SYNC_HOURS: 'Hours between scheduled syncs of the AI-agent list (default 24).',
  DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT:
    'A sync that would drop more than this percentage of the synced entries is refused (default 20).',
  DOCWRIGHT_WORKER:
    'Whether docwright serve also runs jobs: true (default) or false (run docwright worker instead).',
  DOCWRIGHT_WORKER_CONCURRENCY: 'Jobs one worker runs at once (default 2).',
  DOCWRIGHT_JOB_LEASE_SECONDS:
    "How long a worker's claim on a job lasts without a heartbeat; a dead worker's job is taken again after it (default 30).",
  DOCWRIGHT_JOB_MAX_ATTEMPTS: 'Tries per job before it fails with worker_lost (default 3).',
  DOCWRIGHT_METRICS_TOKEN:
    'When set (at least 16 characters), GET /metrics answers only requests with "Authorization: Bearer <token>" (default: unset, /metrics is open).',
  DOCWRIGHT_METRICS_PORT:
    'Port on which docwright worker serves GET /metrics, on HOST (default: unset, no HTTP at all); docwright serve has /metrics on PORT.',
  GITHUB_TOKEN: 'Token for GitHub projects that store no codeHostToken of their own.',
  GITLAB_TOKEN: 'Token for GitLab projects that store no codeHostToken of their own.',
  GITEA_TOKEN: 'Token for Gitea/Forgejo projects that store no codeHostToken of their own.',
  DOCWRIGHT_GIT_AUTHOR_NAME: "Name on the agent's commits (default docwright).",
  DOCWRIGHT_GIT_AUTHOR_EMAIL: "Email on the agent's commits (default docwright@users.noreply.invalid).",
  DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE:
    'true lets webhooks reach loopback, private, link-local and other special-purpose addresses (default false: refused, so a webhook URL cannot reach internal services).',
  DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE:
    'true lets repository URLs use http and point at loopback, private, link-local and other special-purpose addresses, e.g. a local git server (default false: https and public addresses only, so a repository URL cannot reach internal services).',
  DOCWRIGHT_TRUSTED_PROXIES:
    'Comma-separated addresses or ranges (10.0.0.0/8, loopback, linklocal, uniquelocal) of the reverse proxies in front of docwright: a request from one of them counts as coming from the client address it gives in X-Forwarded-For (default: unset, the header is ignored).',
  ...modelEnvironmentVariables(),
} as const;

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const value = (name: keyof typeof CONFIG_VARIABLES | string) => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };

  const port = parseInteger(value('PORT') ?? '3000', 0, 65535);
  if (port === null) problems.push(`PORT must be an integer from 0 to 65535; got "${value('PORT')}".`);

  const host = value('HOST') ?? '127.0.0.1';

  const rawDataDir = value('DOCWRIGHT_DATA_DIR') ?? '.docwright';
  const dataDir = isAbsolute(rawDataDir) ? rawDataDir : resolve(cwd, rawDataDir);

  const databaseUrl = value('DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    // The value may hold a password: name the variable, never echo it.
    problems.push('DATABASE_URL must start with postgres:// or postgresql://.');
  }

  const logLevel = (value('LOG_LEVEL') ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${value('LOG_LEVEL')}".`);
  }

  const publicUrl = value('DOCWRIGHT_PUBLIC_URL') ?? `http://${displayHost(host)}:${port ?? 3000}`;
  if (!isHttpUrl(publicUrl))
    problems.push(`DOCWRIGHT_PUBLIC_URL must be an http(s) URL; got "${publicUrl}".`);

  const jobRateLimitPerHour = parseInteger(value('DOCWRIGHT_JOB_RATE_LIMIT') ?? '100', 1, 1_000_000);
  if (jobRateLimitPerHour === null) {
    problems.push(
      `DOCWRIGHT_JOB_RATE_LIMIT must be an integer from 1 to 1000000; got "${value('DOCWRIGHT_JOB_RATE_LIMIT')}".`,
    );
  }

  const defaultModel = value('DOCWRIGHT_MODEL') ?? null;
  if (defaultModel !== null && !/^[a-z][a-z0-9-]*:\S+$/.test(defaultModel)) {
    problems.push(
      `DOCWRIGHT_MODEL must be written provider:model (e.g. openai:gpt-4.1); got "${defaultModel}".`,
    );
  }

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const n = parseInteger(value(name) ?? String(fallback), min, max);
    if (n === null) problems.push(`${name} must be an integer from ${min} to ${max}; got "${value(name)}".`);
    return n ?? fallback;
  };
  const modelTimeoutMs =
    integer('DOCWRIGHT_MODEL_TIMEOUT_SECONDS', DEFAULT_MODEL_TIMEOUT_MS / 1000, 1, 86_400) * 1000;
  const inServeRaw = (value('DOCWRIGHT_WORKER') ?? 'true').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(inServeRaw)) {
    problems.push(`DOCWRIGHT_WORKER must be true or false; got "${value('DOCWRIGHT_WORKER')}".`);
  }
  const worker: WorkerConfig = {
    inServe: inServeRaw === 'true' || inServeRaw === '1',
    concurrency: integer('DOCWRIGHT_WORKER_CONCURRENCY', 2, 1, 64),
    leaseMs: integer('DOCWRIGHT_JOB_LEASE_SECONDS', 30, 3, 3600) * 1000,
    maxAttempts: integer('DOCWRIGHT_JOB_MAX_ATTEMPTS', 3, 1, 100),
  };
  const gitAuthor = {
    name: value('DOCWRIGHT_GIT_AUTHOR_NAME') ?? 'docwright',
    email: value('DOCWRIGHT_GIT_AUTHOR_EMAIL') ?? 'docwright@users.noreply.invalid',
  };
  if (!/^[^<>\s@]+@[^<>\s@]+$/.test(gitAuthor.email)) {
    problems.push(`DOCWRIGHT_GIT_AUTHOR_EMAIL must be an email address; got "${gitAuthor.email}".`);
  }

  const metricsToken = value('DOCWRIGHT_METRICS_TOKEN') ?? null;
  if (metricsToken !== null && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    // Never echo the value: it is a secret.
    problems.push('DOCWRIGHT_METRICS_TOKEN must be at least 16 characters without spaces.');
  }
  const rawMetricsPort = value('DOCWRIGHT_METRICS_PORT');
  const metrics: MetricsConfig = {
    token: metricsToken,
    workerPort: rawMetricsPort === undefined ? null : integer('DOCWRIGHT_METRICS_PORT', 0, 0, 65535),
  };

  const agentLists = readExtraAgentLists(env, cwd);
  problems.push(...agentLists.problems);
  const syncUrl = value('DOCWRIGHT_AGENT_LIST_SYNC_URL') ?? null;
  if (syncUrl !== null && !isHttpUrl(syncUrl))
    problems.push(`DOCWRIGHT_AGENT_LIST_SYNC_URL must be an http(s) URL; got "${syncUrl}".`);
  const agentList: AgentListConfig = {
    refreshMs: integer('DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS', 30, 1, 3600) * 1000,
    syncUrl,
    syncIntervalMs: integer('DOCWRIGHT_AGENT_LIST_SYNC_HOURS', 24, 1, 720) * 3_600_000,
    maxDropShare: integer('DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT', 20, 0, 100) / 100,
  };

  const flag = (name: 'DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE' | 'DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE') => {
    const raw = (value(name) ?? 'false').toLowerCase();
    if (!['true', 'false', '1', '0'].includes(raw)) {
      problems.push(`${name} must be true or false; got "${value(name)}".`);
    }
    return raw === 'true' || raw === '1';
  };
  const webhooks: WebhooksConfig = { allowPrivateAddresses: flag('DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE') };
  const repositories: RepositoriesConfig = {
    allowPrivateAddresses: flag('DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE'),
  };

  const trustedProxies = parseTrustedProxies(value('DOCWRIGHT_TRUSTED_PROXIES'));
  problems.push(...trustedProxies.problems);

  let secretKey: Buffer | null = null;
  let secretKeySource: Config['secretKeySource'] = 'environment';
  const rawSecret = value('DOCWRIGHT_SECRET_KEY');
  if (rawSecret !== undefined) {
    secretKey = decodeSecretKey(rawSecret);
    if (secretKey === null) {
      problems.push('DOCWRIGHT_SECRET_KEY must be 32 bytes written as 64 hex characters or as base64.');
    }
  } else if (databaseUrl !== null) {
    problems.push(
      'DOCWRIGHT_SECRET_KEY is required when DATABASE_URL is set: every process sharing the database must use the same key (generate one with: openssl rand -hex 32).',
    );
  } else if (problems.length === 0) {
    secretKey = readOrCreateSecretKeyFile(dataDir);
    secretKeySource = 'data-dir';
  }

  if (problems.length > 0 || secretKey === null) throw new ConfigError(problems);
  return {
    port: port!,
    host,
    dataDir,
    databaseUrl,
    secretKey,
    secretKeySource,
    logLevel,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    jobRateLimitPerHour: jobRateLimitPerHour!,
    defaultModel,
    modelCredentials: credentialsFromEnvironment(env),
    modelTimeoutMs,
    worker,
    codeHostTokens: {
      github: value('GITHUB_TOKEN') ?? null,
      gitlab: value('GITLAB_TOKEN') ?? null,
      gitea: value('GITEA_TOKEN') ?? null,
    },
    gitAuthor,
    extraAgentLists: agentLists.paths,
    agentList,
    metrics,
    webhooks,
    repositories,
    trustedProxies: trustedProxies.entries,
  };
}

/**
 * DOCWRIGHT_EXTRA_AGENT_LISTS alone, for commands that need nothing else (`agents list`): each
 * path resolved against cwd and checked to be a readable file. Their content is checked when
 * they are loaded.
 */
export function readExtraAgentLists(
  env: Env = process.env,
  cwd = process.cwd(),
): { paths: string[]; problems: string[] } {
  const raw = env.DOCWRIGHT_EXTRA_AGENT_LISTS ?? '';
  const paths: string[] = [];
  const problems: string[] = [];
  for (const entry of raw.split(',')) {
    const path = entry.trim();
    if (path === '') continue;
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    try {
      if (!statSync(absolute).isFile()) throw new Error('not a file');
      accessSync(absolute, constants.R_OK);
    } catch {
      problems.push(`DOCWRIGHT_EXTRA_AGENT_LISTS names ${absolute}, which is not a readable file.`);
      continue;
    }
    paths.push(absolute);
  }
  return { paths, problems };
}

function parseInteger(raw: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n >= min && n <= max ? n : null;
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

export function decodeSecretKey(raw: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const key = Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64');
    return key.length === 32 ? key : null;
  }
  return null;
}

/** The embedded default keeps its key beside its database, readable by the owner only. */
function readOrCreateSecretKeyFile(dataDir: string): Buffer {
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const key = decodeSecretKey(readFileSync(file, 'utf8').trim());
    if (key === null) throw new ConfigError([`${file} does not hold a valid key (64 hex characters).`]);
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readOrCreateSecretKeyFile(dataDir);
    throw error;
  }
  chmodSync(file, 0o600);
  return key;
}
