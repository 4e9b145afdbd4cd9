// The environment every git process of the workspace runs in. It is built from nothing rather than
// copied from process.env, so that a variable of the host (GIT_DIR, GIT_TRACE_CURL, GIT_ASKPASS, a
// user's ~/.gitconfig or ~/.netrc) can neither redirect git, print the token, nor run a program.
// Settings git would otherwise read from config files come in as GIT_CONFIG_* pairs, which git
// applies to this one process and its children and never writes to disk.

/** Config that applies to every workspace command. */
const SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  // A repository must not run code on this machine: hooks in the mirror (or planted by a
  // checkout) are never looked up.
  ['core.hooksPath', '/dev/null'],
  // No credential helper may store, print or prompt for anything: the header below is the only
  // credential, and it lives in this environment only.
  ['credential.helper', ''],
  // fsmonitor would start a daemon (or a configured program) per worktree.
  ['core.fsmonitor', 'false'],
  // Background gc escapes the mirror lock: when gc runs, it runs in the foreground (see
  // MIRROR_LOCKED_CONFIG for where it may run at all).
  ['gc.autoDetach', 'false'],
  ['advice.detachedHead', 'false'],
  // A code host that stops sending (a stalled connection) ends the command after two minutes
  // instead of holding the job, and the mirror lock, until the job's wall time runs out.
  ['http.lowSpeedLimit', '1'],
  ['http.lowSpeedTime', '120'],
];

/** Commands outside the mirror lock (commit, diff, push) leave maintenance to fetch, which holds it. */
const UNLOCKED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
];

// Variables passed through from the host because a deployment needs them to reach its code host
// (proxies, a private certificate authority). None of them can carry a credential git would send.
const PASSTHROUGH = [
  'PATH',
  'http_proxy',
  'https_proxy',
  'HTTPS_PROXY',
  'no_proxy',
  'NO_PROXY',
  'all_proxy',
  'ALL_PROXY',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const;

export interface GitEnvOptions {
  /** The ready value of an Authorization header, e.g. "Basic eC1hY2Nlc3M...". Null: anonymous. */
  authorization?: string | null;
  /** True for commands that do not hold the mirror lock: automatic maintenance stays off. */
  unlocked?: boolean;
  /** Extra variables for this command (author identity for a commit). */
  extra?: Record<string, string>;
}

export function buildGitEnv(options: GitEnvOptions = {}, host: NodeJS.ProcessEnv = process.env) {
  const env: Record<string, string> = {};
  for (const name of PASSTHROUGH) {
    const value = host[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    // English messages: failures are classified by git's wording.
    LANG: 'C',
    LC_ALL: 'C',
    // No ~/.gitconfig, ~/.config/git/{config,ignore,attributes} nor ~/.netrc (curl reads it).
    HOME: '/dev/null',
    XDG_CONFIG_HOME: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // Never wait for a username or password on a terminal: a refused token is an error.
    GIT_TERMINAL_PROMPT: '0',
    // Only the HTTP transports: a repository URL like ext::... or file:// must not run a program
    // or read this machine's disk.
    GIT_ALLOW_PROTOCOL: 'http:https',
  });
  const config: Array<readonly [string, string]> = [...SAFE_CONFIG];
  if (options.unlocked) config.push(...UNLOCKED_CONFIG);
  if (options.authorization) config.push(['http.extraHeader', `Authorization: ${options.authorization}`]);
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return Object.assign(env, options.extra);
}
