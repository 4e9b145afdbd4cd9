// A local git server for tests: node:http in front of git's own smart-HTTP implementation, `git
// http-backend`, run as a CGI program over bare repositories in a temporary directory (on tmpfs).
// Clones, fetches (protocol v2, partial-clone filters, lazy blob fetches) and pushes are real git
// wire traffic; only the server around it is ours.
//
// Built from git's documentation of git-http-backend(1): the CGI variables it reads
// (GIT_PROJECT_ROOT, GIT_HTTP_EXPORT_ALL, PATH_INFO, REQUEST_METHOD, QUERY_STRING, CONTENT_TYPE,
// CONTENT_LENGTH, REMOTE_USER, REMOTE_ADDR, GIT_PROTOCOL from the Git-Protocol header,
// HTTP_CONTENT_ENCODING for gzip request bodies), its CGI answer (a Status: line and headers, a
// blank line, the body), and "receive-pack is enabled when REMOTE_USER is set"; and from
// git-config(1) for uploadpack.allowFilter / uploadpack.allowAnySHA1InWant (what a code host
// enables so partial clones work) and githooks(5) for the pre-receive hook that plays a
// protected branch.
//
// Like a code host, it answers 401 with `WWW-Authenticate: Basic` unless the request carries the
// configured Authorization header value (or, with anonymousRead, none at all: a public
// repository), and 403 to a push made with a read-only one. It records
// every request without its headers, so tests can see what git asked for but never the token.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the stand-in's own git processes run with: no user or system config of the test machine. */
const SERVER_GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/dev/null',
  XDG_CONFIG_HOME: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
};

export interface RecordedGitRequest {
  method: string;
  /** Path without the query, e.g. /docs.git/info/refs. */
  path: string;
  /** git-upload-pack (clone/fetch) or git-receive-pack (push), when the request names one. */
  service: string | null;
  status: number;
  /** Whether an Authorization header came at all (never its value). */
  hadAuthorization: boolean;
}

export interface GitHttpServerOptions {
  /** The exact Authorization header value that may read and push. */
  authorization: string;
  /** A value that may read but gets 403 on push (a token without write permission). */
  readOnlyAuthorization?: string;
  /** Where the bare repositories live; a new directory under /dev/shm by default. */
  root?: string;
  /**
   * Echo the Authorization header it got in the text of its 403 answer (git prints such text as
   * "remote: ..."), as a careless server might: for testing that clients scrub what they surface.
   */
  reflectAuthorization?: boolean;
  /** Requests without an Authorization header may read (clone, fetch), as for a public repository. */
  anonymousRead?: boolean;
}

export interface GitHttpServer {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  root: string;
  requests: RecordedGitRequest[];
  /** http://127.0.0.1:PORT/<name>.git */
  repoUrl(name: string): string;
  /** The bare repository's directory. */
  repoPath(name: string): string;
  createRepo(name: string, files?: Record<string, string>, options?: CreateRepoOptions): Promise<string>;
  /** Rejects every push that updates refs/heads/<branch>, as a protected branch does. */
  protectBranch(name: string, branch: string): Promise<void>;
  close(): Promise<void>;
}

export interface CreateRepoOptions {
  defaultBranch?: string;
  /** Further branches to create, each with the files of the default branch plus its own. */
  branches?: Record<string, Record<string, string>>;
}

/** A small documentation site: what the agent tests edit. */
export const SAMPLE_DOCS: Record<string, string> = {
  'README.md': '# Sample docs\n\nThe documentation of the sample product.\n',
  'AGENTS.md': '# Instructions for agents\n\n- Write in plain English.\n- Keep one sentence per line.\n',
  'docs/index.md': '# Welcome\n\nThis is the start page.\n\nRead the [guide](guide.md).\n',
  'docs/guide.md':
    '# Guide\n\n## Install\n\nRun the installer.\n\n## Configure\n\nEdit the settings file.\nRestart the service.\n',
  'docs/reference/api.md': '# API\n\n## GET /items\n\nLists the items.\n',
  '.github/workflows/deploy.yml': 'name: deploy\non: push\njobs: {}\n',
};

async function git(args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
  return run('git', args, { cwd, env: { ...SERVER_GIT_ENV, ...extraEnv } });
}

/**
 * A bare repository `<root>/<name>.git` holding `files` in one commit on `defaultBranch`, set up
 * like a code host's: filters and fetches by object id allowed (partial clones need both).
 */
export async function createBareRepo(
  root: string,
  name: string,
  files: Record<string, string> = SAMPLE_DOCS,
  options: CreateRepoOptions = {},
): Promise<string> {
  const defaultBranch = options.defaultBranch ?? 'main';
  const bare = join(root, `${name}.git`);
  const work = await mkdtemp(join(root, '.seed-'));
  const author = {
    GIT_AUTHOR_NAME: 'Seed',
    GIT_AUTHOR_EMAIL: 'seed@example.test',
    GIT_COMMITTER_NAME: 'Seed',
    GIT_COMMITTER_EMAIL: 'seed@example.test',
  };
  try {
    await git(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, bare], root);
    await git(['config', 'uploadpack.allowFilter', 'true'], bare);
    await git(['config', 'uploadpack.allowAnySHA1InWant', 'true'], bare);
    await git(['init', '--quiet', `--initial-branch=${defaultBranch}`, work], root);
    // No automatic gc in the throwaway seed: committing thousands of files (bench/agent.ts's
    // 10,000) starts a detached `git gc --auto`, which goes on repacking after this returns and
    // writes .git/info/refs while the rm below deletes the directory (ENOTEMPTY).
    await git(['config', 'gc.auto', '0'], work);
    await git(['config', 'maintenance.auto', 'false'], work);
    const writeAll = async (entries: Record<string, string>) => {
      for (const [path, content] of Object.entries(entries)) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), content);
      }
    };
    await writeAll(files);
    await git(['add', '--all'], work);
    await git(['commit', '--quiet', '-m', 'Initial docs'], work, author);
    await git(['push', '--quiet', bare, `HEAD:refs/heads/${defaultBranch}`], work);
    for (const [branch, extra] of Object.entries(options.branches ?? {})) {
      await git(['checkout', '--quiet', '-B', branch, defaultBranch], work);
      await writeAll(extra);
      await git(['add', '--all'], work);
      await git(['commit', '--quiet', '-m', `Work on ${branch}`], work, author);
      await git(['push', '--quiet', bare, `HEAD:refs/heads/${branch}`], work);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return bare;
}

/**
 * An ordinary (non-bare) repository at `dir` with `files` committed: a stand-in worktree for
 * tests of the agent's tools, which need git's index (ls-files, grep) but no server.
 */
export async function createCheckout(
  dir: string,
  files: Record<string, string> = SAMPLE_DOCS,
): Promise<string> {
  await git(['init', '--quiet', '--initial-branch=main', dir], dirname(dir));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await git(['add', '--all'], dir);
  await git(['commit', '--quiet', '-m', 'Initial docs'], dir, {
    GIT_AUTHOR_NAME: 'Seed',
    GIT_AUTHOR_EMAIL: 'seed@example.test',
    GIT_COMMITTER_NAME: 'Seed',
    GIT_COMMITTER_EMAIL: 'seed@example.test',
  });
  return dir;
}

/**
 * A contributor's commit on `branch` of a bare repository (as a merged pull request or a push
 * lands): `files` written (null deletes one), `symlinks` made (path → target); answers its id.
 */
export async function commitToBare(
  bare: string,
  files: Record<string, string | Buffer | null>,
  message: string,
  options: { branch?: string; symlinks?: Record<string, string> } = {},
): Promise<string> {
  const branch = options.branch ?? 'main';
  const work = await mkdtemp(join(dirname(bare), '.work-'));
  const author = {
    GIT_AUTHOR_NAME: 'Contributor',
    GIT_AUTHOR_EMAIL: 'contributor@example.test',
    GIT_COMMITTER_NAME: 'Contributor',
    GIT_COMMITTER_EMAIL: 'contributor@example.test',
  };
  try {
    await git(['clone', '--quiet', '--branch', branch, bare, work], dirname(bare));
    for (const [path, content] of Object.entries(files)) {
      if (content === null) await rm(join(work, path), { force: true });
      else {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), content);
      }
    }
    for (const [path, target] of Object.entries(options.symlinks ?? {})) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await symlink(target, join(work, path));
    }
    await git(['add', '--all'], work);
    await git(['commit', '--quiet', '-m', message], work, author);
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** git http-backend's answer: CGI headers, a blank line, then the body. */
function splitCgiHead(buffer: Buffer): { head: string; body: Buffer } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf < 0 && lf < 0) return null;
  const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
  const gap = end === crlf ? 4 : 2;
  return { head: buffer.subarray(0, end).toString('latin1'), body: buffer.subarray(end + gap) };
}

function serviceOf(url: URL): string | null {
  const queried = url.searchParams.get('service');
  if (queried) return queried;
  const last = url.pathname.split('/').pop() ?? '';
  return last.startsWith('git-') ? last : null;
}

export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const ownsRoot = !options.root;
  const root = options.root ?? (await mkdtemp('/dev/shm/docwright-git-'));
  const requests: RecordedGitRequest[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const service = serviceOf(url);
    const given = req.headers.authorization;
    const record = (status: number) =>
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        service,
        status,
        hadAuthorization: !!given,
      });

    const fullAccess = given === options.authorization;
    const readOnly =
      (options.readOnlyAuthorization !== undefined && given === options.readOnlyAuthorization) ||
      (options.anonymousRead === true && given === undefined);
    if (!fullAccess && !readOnly) {
      record(401);
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git stand-in"', 'Content-Type': 'text/plain' });
      res.end('Authentication required\n');
      return;
    }
    if (!fullAccess && service === 'git-receive-pack') {
      record(403);
      req.resume();
      res.writeHead(403, { 'Content-Type': 'text/plain' });
      const reflected = options.reflectAuthorization ? ` to the holder of "${given}"` : '';
      res.end(`Write access to this repository is not granted${reflected}\n`);
      return;
    }

    const env: Record<string, string> = {
      ...SERVER_GIT_ENV,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      REQUEST_METHOD: req.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_USER: 'docwright-test',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    };
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
    const protocol = req.headers['git-protocol'];
    if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;

    const backend = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    req.pipe(backend.stdin);
    backend.stdin.on('error', () => undefined); // the backend may answer (404) before reading the body
    backend.stderr.resume();
    let pending: Buffer = Buffer.alloc(0);
    let headSent = false;
    backend.stdout.on('data', (chunk: Buffer) => {
      if (headSent) {
        res.write(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      const split = splitCgiHead(pending);
      if (!split) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of split.head.split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
        else headers[name] = value;
      }
      headSent = true;
      record(status);
      res.writeHead(status, headers);
      if (split.body.length > 0) res.write(split.body);
    });
    backend.on('close', () => {
      if (!headSent) {
        record(502);
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end('git http-backend gave no answer\n');
        return;
      }
      res.end();
    });
  };

  const server: Server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    root,
    requests,
    repoUrl: (name) => `${baseUrl}/${name}.git`,
    repoPath: (name) => join(root, `${name}.git`),
    createRepo: (name, files, repoOptions) => createBareRepo(root, name, files, repoOptions),
    async protectBranch(name, branch) {
      const hook = join(root, `${name}.git`, 'hooks', 'pre-receive');
      await mkdir(dirname(hook), { recursive: true });
      await writeFile(
        hook,
        [
          '#!/bin/sh',
          '# Written by the git stand-in: plays a protected branch.',
          'while read old new ref; do',
          `  if [ "$ref" = "refs/heads/${branch}" ]; then`,
          '    echo "protected branch: pushes to $ref are not allowed" >&2',
          '    exit 1',
          '  fi',
          'done',
          'exit 0',
          '',
        ].join('\n'),
      );
      await chmod(hook, 0o755);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownsRoot) await rm(root, { recursive: true, force: true });
    },
  };
}
