// The server's configuration, read from environment variables once at start. Nothing else in
// docwright reads process.env: entry points call loadConfig() and pass the result down. The
// variables themselves, with their types, defaults and meanings, are declared in variables.ts.
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { credentialsFromEnvironment, type ProviderCredentials } from '../models/environment.ts';
import type { ModelProvider } from '../models/model-spec.ts';
import { type Env, readEnvironment } from './read-environment.ts';
import { parseTrustedProxies } from './trusted-proxies.ts';
import { isHttpUrl, type LogLevel, MODEL_VARIABLES, SERVER_VARIABLES } from './variables.ts';

export type { LogLevel } from './variables.ts';

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
  /** Absolute path of the deployment's price table (DOCWRIGHT_MODEL_PRICES_FILE); null: built-in only. */
  modelPricesFile: string | null;
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
  /** Where the server syncs the AI-referrer list from on the same schedule; null: no scheduled sync. */
  referrerSyncUrl?: string | null;
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

/**
 * The configuration as loadConfig reads it, before the secret key file: secretKey is null when
 * the key lives in the data directory, where withSecretKey (secret-key-file.ts) reads or creates
 * it for the commands that need it.
 */
export type LoadedConfig = Omit<Config, 'secretKey' | 'secretKeySource'> & { secretKey: Buffer | null };

/**
 * Reads and checks every variable of CONFIG_VARIABLES, all problems at once. It writes nothing:
 * creating the data directory's secret key is the commands' business (withSecretKey).
 */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): LoadedConfig {
  const server = readEnvironment(SERVER_VARIABLES, env);
  const models = readEnvironment(MODEL_VARIABLES, env);
  const problems = [...server.problems, ...models.problems];
  const v = server.values;

  const dataDir = resolvePath(v.DOCWRIGHT_DATA_DIR, cwd);
  const databaseUrl = v.DATABASE_URL ?? null;

  // Checked here rather than by its declaration: the default depends on HOST and PORT.
  const publicUrl = v.DOCWRIGHT_PUBLIC_URL ?? `http://${displayHost(v.HOST)}:${v.PORT}`;
  if (v.DOCWRIGHT_PUBLIC_URL === undefined && !isHttpUrl(publicUrl))
    problems.push(`DOCWRIGHT_PUBLIC_URL must be an http(s) URL; got "${publicUrl}".`);

  const agentLists = extraAgentLists(v.DOCWRIGHT_EXTRA_AGENT_LISTS, cwd);
  problems.push(...agentLists.problems);
  const modelPricesFile =
    v.DOCWRIGHT_MODEL_PRICES_FILE === undefined ? null : resolvePath(v.DOCWRIGHT_MODEL_PRICES_FILE, cwd);
  if (modelPricesFile !== null && !isReadableFile(modelPricesFile)) {
    problems.push(`DOCWRIGHT_MODEL_PRICES_FILE names ${modelPricesFile}, which is not a readable file.`);
  }
  const trustedProxies = parseTrustedProxies(v.DOCWRIGHT_TRUSTED_PROXIES);
  problems.push(...trustedProxies.problems);

  const secretKey = v.DOCWRIGHT_SECRET_KEY === undefined ? null : decodeSecretKey(v.DOCWRIGHT_SECRET_KEY);
  // A malformed DATABASE_URL still says PostgreSQL is meant, and PostgreSQL needs the key.
  if (!server.given.has('DOCWRIGHT_SECRET_KEY') && server.given.has('DATABASE_URL')) {
    problems.push(
      'DOCWRIGHT_SECRET_KEY is required when DATABASE_URL is set: every process sharing the database must use the same key (generate one with: openssl rand -hex 32).',
    );
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: v.PORT,
    host: v.HOST,
    dataDir,
    databaseUrl,
    secretKey,
    logLevel: v.LOG_LEVEL,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    jobRateLimitPerHour: v.DOCWRIGHT_JOB_RATE_LIMIT,
    defaultModel: v.DOCWRIGHT_MODEL ?? null,
    modelCredentials: credentialsFromEnvironment(models.values as Env),
    modelTimeoutMs: v.DOCWRIGHT_MODEL_TIMEOUT_SECONDS * 1000,
    modelPricesFile,
    worker: {
      inServe: v.DOCWRIGHT_WORKER,
      concurrency: v.DOCWRIGHT_WORKER_CONCURRENCY,
      leaseMs: v.DOCWRIGHT_JOB_LEASE_SECONDS * 1000,
      maxAttempts: v.DOCWRIGHT_JOB_MAX_ATTEMPTS,
    },
    codeHostTokens: {
      github: v.GITHUB_TOKEN ?? null,
      gitlab: v.GITLAB_TOKEN ?? null,
      gitea: v.GITEA_TOKEN ?? null,
    },
    gitAuthor: { name: v.DOCWRIGHT_GIT_AUTHOR_NAME, email: v.DOCWRIGHT_GIT_AUTHOR_EMAIL },
    extraAgentLists: agentLists.paths,
    agentList: {
      refreshMs: v.DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS * 1000,
      syncUrl: v.DOCWRIGHT_AGENT_LIST_SYNC_URL ?? null,
      referrerSyncUrl: v.DOCWRIGHT_REFERRER_LIST_SYNC_URL ?? null,
      syncIntervalMs: v.DOCWRIGHT_AGENT_LIST_SYNC_HOURS * 3_600_000,
      maxDropShare: v.DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT / 100,
    },
    metrics: { token: v.DOCWRIGHT_METRICS_TOKEN ?? null, workerPort: v.DOCWRIGHT_METRICS_PORT ?? null },
    webhooks: { allowPrivateAddresses: v.DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE },
    repositories: { allowPrivateAddresses: v.DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE },
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
  const { DOCWRIGHT_EXTRA_AGENT_LISTS } = SERVER_VARIABLES;
  const { values } = readEnvironment({ DOCWRIGHT_EXTRA_AGENT_LISTS }, env);
  return extraAgentLists(values.DOCWRIGHT_EXTRA_AGENT_LISTS, cwd);
}

/**
 * DATABASE_URL and DOCWRIGHT_DATA_DIR alone, for a command that must learn whether a database
 * exists before deciding to open it (`agents list`), without checking the other variables.
 */
export function readDatabaseLocation(
  env: Env = process.env,
  cwd = process.cwd(),
): { databaseUrl: string | null; dataDir: string; problems: string[] } {
  const { DATABASE_URL, DOCWRIGHT_DATA_DIR } = SERVER_VARIABLES;
  const { values, problems } = readEnvironment({ DATABASE_URL, DOCWRIGHT_DATA_DIR }, env);
  return {
    databaseUrl: values.DATABASE_URL ?? null,
    dataDir: resolvePath(values.DOCWRIGHT_DATA_DIR, cwd),
    problems,
  };
}

function extraAgentLists(raw: string | undefined, cwd: string): { paths: string[]; problems: string[] } {
  const paths: string[] = [];
  const problems: string[] = [];
  for (const entry of (raw ?? '').split(',')) {
    const path = entry.trim();
    if (path === '') continue;
    const absolute = resolvePath(path, cwd);
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

function isReadableFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function resolvePath(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
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
