// What the CLI's client commands (jobs ..., views, agents-report) share: where the server is and
// with which key and project (flags, else DOCWRIGHT_URL / DOCWRIGHT_API_KEY / DOCWRIGHT_PROJECT),
// and how an answer of the API that is an error is shown: the API's message, its code and the
// request id, never the key. These variables are read here only, by the client commands; the
// server's configuration (src/config) does not read them.
import type { Command } from 'commander';
import {
  DocwrightClient,
  DocwrightError,
  DocwrightNetworkError,
  DocwrightTimeoutError,
} from '../../sdk/index.ts';
import { scrubSecrets } from '../../util/logger.ts';
import { UsageError } from './usage-error.ts';

export const DEFAULT_SERVER_URL = 'http://127.0.0.1:3000';

/** The variables the client commands read, with their meaning (for --help and docs/cli.md). */
export const CLIENT_VARIABLES: Record<string, string> = {
  DOCWRIGHT_URL: `Where the docwright server is, for jobs, views, agents-report and mcp (default ${DEFAULT_SERVER_URL}).`,
  DOCWRIGHT_API_KEY: 'The API key (dw_...) those commands send (mcp too); never printed.',
  DOCWRIGHT_PROJECT: 'The project (prj_...) those commands act on.',
};

/** Exit statuses beyond 0 (done), 1 (failed) and 2 (mistyped): see docs/cli.md. */
export const EXIT_FAILURE = 1;
export const EXIT_JOB_FAILED = 3;
export const EXIT_WAIT_TIMEOUT = 4;
/** Ctrl-C while waiting, as shells report a SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;

/** Ctrl-C during --wait: the wait stops, the job goes on. */
export class WaitInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitInterrupted';
  }
}

export interface ClientFlags {
  url?: string;
  key?: string;
  project?: string;
}

export interface ClientSettings {
  client: DocwrightClient;
  projectId: string;
}

/** Adds --url, --key and --project to a client command. */
export function addClientOptions(command: Command): Command {
  return command
    .option('--url <url>', `server URL (default: $DOCWRIGHT_URL, else ${DEFAULT_SERVER_URL})`)
    .option(
      '--key <key>',
      'API key (default: $DOCWRIGHT_API_KEY; prefer the variable: a flag shows in the process list)',
    )
    .option('--project <projectId>', 'project (default: $DOCWRIGHT_PROJECT)');
}

/** The client and project from the flags, else the environment; a missing one is a usage error. */
export function clientSettings(flags: ClientFlags, env: Record<string, string | undefined>): ClientSettings {
  const pick = (flag: string | undefined, variable: string) => {
    const value = (flag ?? env[variable])?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const baseUrl = pick(flags.url, 'DOCWRIGHT_URL') ?? DEFAULT_SERVER_URL;
  const apiKey = pick(flags.key, 'DOCWRIGHT_API_KEY');
  const projectId = pick(flags.project, 'DOCWRIGHT_PROJECT');
  const missing = [
    apiKey === undefined ? 'an API key: set DOCWRIGHT_API_KEY (or pass --key)' : null,
    projectId === undefined ? 'a project: set DOCWRIGHT_PROJECT (or pass --project prj_...)' : null,
  ].filter((m) => m !== null);
  if (missing.length > 0) {
    throw new UsageError(
      `${missing.join('; ')}. Create a key with: docwright keys create --project <projectId>`,
    );
  }
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
    throw new UsageError('the server URL (DOCWRIGHT_URL or --url) must start with http:// or https://.');
  }
  try {
    return { client: new DocwrightClient({ baseUrl, apiKey: apiKey! }), projectId: projectId! };
  } catch (error) {
    // The client refuses a malformed URL or one with credentials in it, before any request.
    throw new UsageError(`the server URL: ${(error as Error).message}`);
  }
}

/**
 * Runs a client command. Failures of the API or the network are printed here (stderr) and set the
 * exit status to 1; everything else goes on to the CLI's own error report (usage errors: 2).
 */
export async function runClientCommand(
  action: () => Promise<unknown>,
  write: (text: string) => void = (text) => process.stderr.write(text),
): Promise<void> {
  try {
    const status = await action();
    if (typeof status === 'number' && status !== 0) process.exitCode = status;
  } catch (error) {
    const status = reportClientError(error, write);
    if (status === null) throw error;
    process.exitCode = status;
  }
}

/** The exit status for a client error after printing it; null when it is not one. */
export function reportClientError(error: unknown, write: (text: string) => void): number | null {
  const say = (text: string) => write(`${scrubSecrets(text)}\n`);
  if (error instanceof DocwrightError) {
    say(`error: ${error.message}`);
    for (const detail of error.details) {
      if (!error.message.includes(detail.message))
        say(`  - ${detail.name ? `${detail.name}: ` : ''}${detail.message}`);
    }
    say(`  code: ${error.code} (HTTP ${error.status})`);
    if (error.requestId) say(`  request id: ${error.requestId} (quote it when reporting a problem)`);
    if (error.retryAfterSeconds !== null) say(`  retry after: ${error.retryAfterSeconds} s`);
    return EXIT_FAILURE;
  }
  if (error instanceof DocwrightNetworkError) {
    say(`error: ${error.message}`);
    say('  Is the server running? Set DOCWRIGHT_URL (or --url) to where it listens.');
    return EXIT_FAILURE;
  }
  if (error instanceof WaitInterrupted) {
    say(error.message);
    return EXIT_INTERRUPTED;
  }
  if (error instanceof DocwrightTimeoutError) {
    say(`error: ${error.message}`);
    say(`  The job goes on; check it with: docwright jobs get ${error.jobId}`);
    return EXIT_WAIT_TIMEOUT;
  }
  return null;
}
