// `docwright serve`: opens the database, starts the HTTP API, and on the embedded database also
// a control socket through which the CLI's admin commands reach the database this process holds.
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { buildApp } from '../http/app.ts';
import type { App } from '../http/context.ts';
import { createMetrics } from '../metrics/registry.ts';
import { createSetupToken } from '../modules/accounts/index.ts';
import { startAgentListUpdates } from '../modules/analytics/index.ts';
import type { Logger } from '../util/logger.ts';
import {
  firstStartBanner,
  firstStartFileNotice,
  laterStartHint,
  setupLinkBanner,
  setupLinkFileNotice,
  startBanner,
} from './banner.ts';
import { cliCommand } from './cli-command.ts';
import { classificationWithExtraLists } from './commands/agents-list.ts';
import { ADMIN_COMMANDS } from './commands/registry.ts';
import { type ControlSocket, startControlSocket } from './control/control-server.ts';
import { firstStart } from './first-start.ts';
import { trackRequestsInFlight } from './in-flight.ts';
import { ListenError } from './listen-error.ts';
import { openWhenFree } from './open-when-free.ts';
import { removeFile, writeOwnerOnlyFile } from './owner-only-file.ts';
import type { ServeExtension } from './serve-extension.ts';
import { SERVE_EXTENSIONS } from './serve-extensions.ts';

/** Where the shown-once secrets go, in the data directory, when stdout is not a terminal. */
export const FIRST_START_FILE = 'first-start-key.txt';
export const SETUP_LINK_FILE = 'dashboard-setup-link.txt';

export interface RunningServer {
  /** The URL the API answers at (with the real port when PORT=0). */
  baseUrl: string;
  /** Adds work to do at shutdown, after the HTTP server stopped and before the database closes. */
  onShutdown(closer: () => Promise<void>): void;
  /** Stops accepting, finishes in-flight requests, runs the closers, closes the database. */
  close(): Promise<void>;
}

export interface ServeOptions {
  logger: Logger;
  /** Where the banner goes: people read it on the console; it never goes through the logger. */
  print?: (text: string) => void;
  /**
   * Whether print reaches a person at a terminal (default: stdout is a TTY). Only then are the
   * shown-once secrets printed; otherwise they go to owner-only files in the data directory.
   */
  terminal?: boolean;
  extensions?: readonly ServeExtension[];
}

export async function serve(config: Config, options: ServeOptions): Promise<RunningServer> {
  const { logger } = options;
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const terminal = options.terminal ?? process.stdout.isTTY === true;
  const opened = await openWhenFree(config, 'serve');
  const { db, lock } = opened;
  const closers: (() => Promise<void>)[] = [];
  let app: App | null = null;
  let control: ControlSocket | null = null;
  let inFlight: ReturnType<typeof trackRequestsInFlight> | null = null;

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const errors: unknown[] = [];
      const attempt = async (fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (error) {
          errors.push(error);
        }
      };
      // The CLI must stop sending here before the database goes away; it will wait for the lock.
      if (control !== null) {
        const socket = control;
        lock?.update({ controlSocket: undefined });
        await attempt(() => socket.close());
      }
      if (app !== null) {
        const http = app;
        inFlight?.closeConnectionsAfterAnswers();
        await attempt(() => http.close());
      }
      for (const closer of closers.toReversed()) await attempt(closer);
      await attempt(() => opened.close()); // also releases the data directory's lock
      if (errors.length > 0) throw new AggregateError(errors, 'Some parts did not stop cleanly');
    })();
    return closing;
  };

  try {
    // One registry for the process: the API and the worker beside it report into the same one.
    const metrics = createMetrics({ processMetrics: true });
    const jobListeners: ((jobId: string) => void)[] = [];
    for (const extension of options.extensions ?? SERVE_EXTENSIONS) {
      const started = await extension.start({ db, config, logger, metrics });
      closers.push(() => started.close());
      if (started.onJobQueued) jobListeners.push(started.onJobQueued);
    }

    // One agent list for the whole server, with the operator's extra lists and the synced
    // version from the database, kept current while the server runs.
    const classification = classificationWithExtraLists(config.extraAgentLists);
    const agentLists = await startAgentListUpdates(db, classification, config.agentList, logger);
    closers.push(() => agentLists.close());

    app = await buildApp({
      db,
      logger,
      dashboard: { secretKey: config.secretKey, repositories: config.repositories },
      metrics,
      metricsToken: config.metrics.token,
      trustedProxies: config.trustedProxies,
      config: {
        jobRateLimitPerHour: config.jobRateLimitPerHour,
        defaultModel: config.defaultModel,
        publicUrl: config.publicUrl,
      },
      classification,
      secretKey: config.secretKey,
      ...(jobListeners.length > 0
        ? {
            onJobQueued: (jobId: string) => {
              for (const listener of jobListeners) listener(jobId);
            },
          }
        : {}),
    });
    inFlight = trackRequestsInFlight(app.server);
    await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
      throw ListenError.wrap(config.host, config.port, error);
    });
    const baseUrl = resolveBaseUrl(config.publicUrl, (app.server.address() as AddressInfo).port);
    lock?.update({ url: baseUrl });

    // After listen, not before: if the port is taken, the key would be created and never shown.
    const first = await firstStart(db);
    // On a database without dashboard accounts: a one-time code for the owner's setup page.
    const setupCode = await createSetupToken(db);

    if (lock !== null) {
      control = await startControlSocket({
        dataDir: config.dataDir,
        db,
        logger,
        commands: ADMIN_COMMANDS,
        context: { secretKey: config.secretKey, repositories: config.repositories },
      });
      lock.update({ controlSocket: control.path });
    }

    const database =
      config.databaseUrl === null
        ? `PGlite (embedded) in ${join(config.dataDir, 'pgdata')}`
        : 'PostgreSQL (DATABASE_URL)';
    const cli = cliCommand();
    const banner = [startBanner({ baseUrl, database })];
    if (setupCode === null) removeFile(config.dataDir, SETUP_LINK_FILE);
    else if (terminal) banner.push(setupLinkBanner(baseUrl, setupCode));
    else {
      const file = writeOwnerOnlyFile(config.dataDir, SETUP_LINK_FILE, setupLinkBanner(baseUrl, setupCode));
      banner.push(setupLinkFileNotice(file));
    }
    let firstStartFile: string | undefined;
    if (first === null) banner.push(laterStartHint(cli));
    else if (terminal) banner.push(firstStartBanner(first, baseUrl, cli));
    else {
      firstStartFile = writeOwnerOnlyFile(
        config.dataDir,
        FIRST_START_FILE,
        firstStartBanner(first, baseUrl, cli),
      );
      banner.push(firstStartFileNotice(firstStartFile));
    }
    logger.info(
      {
        url: baseUrl,
        docs: `${baseUrl}/docs`,
        database: config.databaseUrl === null ? 'pglite' : 'postgres',
        ...(first !== null ? { firstStartProjectId: first.project.id } : {}),
        ...(firstStartFile !== undefined ? { firstStartFile } : {}),
      },
      'listening',
    );
    // Last, and in one write, so the key is the last thing on the screen and never split by a log line.
    print(banner.join(''));

    return {
      baseUrl,
      onShutdown: (closer) => {
        closers.push(closer);
      },
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

/** PORT=0 lets the system pick a port; links must then carry the real one. */
function resolveBaseUrl(publicUrl: string, actualPort: number): string {
  const url = new URL(publicUrl);
  if (url.port !== '0') return publicUrl;
  url.port = String(actualPort);
  return url.toString().replace(/\/+$/, '');
}
