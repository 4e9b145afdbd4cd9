// The three code hosts as the end-to-end tests see them: a fake of the host's API (GitHub's behind
// Prism, checked against GitHub's OpenAPI description; GitLab's and Gitea's written from their
// documentation, not schema-checked), holding the repository acme/docs, behind the code-host link
// that teaches it the branches pushed to the git server. Each kind also says how a project points
// at it and which Authorization header its git server must demand: the one that host's
// documentation gives for tokens, written out here rather than taken from the adapters, so an
// adapter that sent something else would fail the test.
import { randomBytes } from 'node:crypto';
import { type CheckedGitHub, startCheckedGitHub } from '../code-hosts/github-stand.ts';
import type { ScriptedFault } from '../stand-ins/code-host-fake-http.ts';
import { GiteaFake } from '../stand-ins/gitea-fake.ts';
import { GitLabFake } from '../stand-ins/gitlab-fake.ts';
import { type CodeHostLink, startCodeHostLink } from './code-host-link.ts';

export type HostKind = 'github' | 'gitlab' | 'gitea';

export const OWNER = 'acme';
export const REPO = 'docs';

/** A pull request (GitHub, Gitea) or merge request (GitLab), as the fake holds it. */
export interface HostPull {
  number: number;
  /** The web address the host gives it: html_url or web_url. */
  url: string;
  head: string;
  base: string;
  title: string;
  body: string;
  open: boolean;
}

export interface HostStand {
  kind: HostKind;
  token: string;
  /** What the project's codeHostBaseUrl is set to (GitLab, Gitea); null for GitHub. */
  baseUrl: string | null;
  /** The API root the adapter is given instead (GitHub behind Prism), else null. */
  apiUrl: string | null;
  link: CodeHostLink;
  /** The GitHub stand with Prism, when kind is github. */
  github: CheckedGitHub | null;
  pulls(): HostPull[];
  /** Scripted answers for the next requests that create a pull request. */
  failPullRequestCreation(status: number, times?: number): void;
  /**
   * Reports a finished CI check on a commit, as the host's CI would: a GitHub check run (its
   * output summary holding the details), a GitLab pipeline with one job (its log), a Gitea commit
   * status (its description).
   */
  reportCheck(sha: string, check: { name: string; passed: boolean; details: string }): void;
  /** Scripted answers for the next requests that read a commit's CI status. */
  failCiReads(status: number, times?: number): void;
  /** How many requests read a commit's CI status so far. */
  ciReads(): number;
  /** Where a token was seen outside its header (must stay empty). */
  secretLeaks(): string[];
  recordedText(): string;
  stop(): Promise<void>;
}

export function newToken(kind: HostKind): string {
  if (kind === 'github') return `ghp_${randomBytes(18).toString('hex')}`;
  if (kind === 'gitlab') return `glpat-${randomBytes(12).toString('hex')}`;
  return randomBytes(20).toString('hex'); // Gitea tokens are 40 hex characters
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * The Authorization value each host's git server accepts for a token: GitHub documents
 * x-access-token as the user name; GitLab any user name (oauth2 is its documented one) with the
 * token as password; Gitea reads the token as the user name when the password is x-oauth-basic.
 */
export function gitAuthorization(kind: HostKind, token: string): string {
  if (kind === 'github') return basic('x-access-token', token);
  if (kind === 'gitlab') return basic('oauth2', token);
  return basic(token, 'x-oauth-basic');
}

const CI_PATH: Record<HostKind, RegExp> = {
  github: /\/commits\/[^/]+\/check-runs$/,
  gitlab: /\/projects\/[^/]+\/pipelines$/,
  gitea: /\/commits\/[^/]+\/status$/,
};

const CREATE_PATH: Record<HostKind, RegExp> = {
  github: /\/repos\/[^/]+\/[^/]+\/pulls$/,
  gitlab: /\/projects\/[^/]+\/merge_requests$/,
  gitea: /\/api\/v1\/repos\/[^/]+\/[^/]+\/pulls$/,
};

export function pullRequestCreatePath(kind: HostKind): RegExp {
  return CREATE_PATH[kind];
}

export async function startHostStand(
  kind: HostKind,
  options: { token: string; bareRepository: string },
): Promise<HostStand> {
  const { token, bareRepository } = options;
  if (kind === 'github') {
    const github = await startCheckedGitHub({ tokens: [token] });
    github.fake.addRepo({ owner: OWNER, name: REPO });
    const link = await startCodeHostLink({
      target: github.prism.url,
      bareRepository,
      addBranch: (branch) => github.fake.addBranch(OWNER, REPO, branch),
    });
    return {
      kind,
      token,
      baseUrl: null,
      apiUrl: `${link.url}${github.apiUrl.slice(github.prism.url.length)}`,
      link,
      github,
      pulls: () =>
        github.fake.pulls(OWNER, REPO).map((p) => ({
          number: p.number,
          url: p.html_url,
          head: p.head,
          base: p.base,
          title: p.title,
          body: p.body ?? '',
          open: p.state === 'open',
        })),
      failPullRequestCreation: (status, times = 1) =>
        github.fake.fail(fault(status, times, CREATE_PATH.github, 'github')),
      reportCheck: (sha, check) =>
        github.fake.addCheckRun(OWNER, REPO, {
          sha,
          name: check.name,
          conclusion: check.passed ? 'success' : 'failure',
          output: { title: check.passed ? 'Passed' : 'Failed', summary: check.details },
        }),
      failCiReads: (status, times = 1) =>
        github.fake.fail({
          status,
          method: 'GET',
          path: CI_PATH.github,
          times,
          body: { message: 'Service Unavailable' },
        }),
      ciReads: () => github.fake.requests.filter((r) => CI_PATH.github.test(r.url.split('?')[0]!)).length,
      secretLeaks: () => github.fake.secretLeaks,
      recordedText: () => github.fake.recordedText(),
      stop: async () => {
        await link.close();
        await github.stop();
      },
    };
  }
  if (kind === 'gitlab') {
    const fake = new GitLabFake({ tokens: [token], webUrl: 'https://gitlab.example.test' });
    await fake.start();
    const fullPath = `${OWNER}/${REPO}`;
    fake.addProject({ fullPath });
    const link = await startCodeHostLink({
      target: fake.url,
      bareRepository,
      addBranch: (branch) => fake.addBranch(fullPath, branch),
    });
    return {
      kind,
      token,
      baseUrl: link.url,
      apiUrl: null,
      link,
      github: null,
      pulls: () =>
        fake.mergeRequests(fullPath).map((mr) => ({
          number: mr.iid,
          url: mr.web_url,
          head: mr.sourceBranch,
          base: mr.targetBranch,
          title: mr.title,
          body: mr.description ?? '',
          open: mr.state === 'opened',
        })),
      failPullRequestCreation: (status, times = 1) =>
        fake.fail(fault(status, times, CREATE_PATH.gitlab, 'gitlab')),
      reportCheck: (sha, check) =>
        fake.addPipeline(fullPath, {
          sha,
          jobs: [{ name: check.name, status: check.passed ? 'success' : 'failed', log: check.details }],
        }),
      failCiReads: (status, times = 1) =>
        fake.fail({
          status,
          method: 'GET',
          path: CI_PATH.gitlab,
          times,
          body: { message: `${status} Service Unavailable` },
        }),
      ciReads: () => fake.requests.filter((r) => CI_PATH.gitlab.test(r.url.split('?')[0]!)).length,
      secretLeaks: () => fake.secretLeaks,
      recordedText: () => fake.recordedText(),
      stop: async () => {
        await link.close();
        await fake.stop();
      },
    };
  }
  const fake = new GiteaFake({ tokens: [token], webUrl: 'https://gitea.example.test' });
  await fake.start();
  fake.addRepo({ owner: OWNER, name: REPO });
  const link = await startCodeHostLink({
    target: fake.url,
    bareRepository,
    addBranch: (branch) => fake.addBranch(OWNER, REPO, branch),
  });
  return {
    kind,
    token,
    baseUrl: link.url,
    apiUrl: null,
    link,
    github: null,
    pulls: () =>
      fake.pulls(OWNER, REPO).map((p) => ({
        number: p.number,
        url: p.html_url,
        head: p.head,
        base: p.base,
        title: p.title,
        body: p.body,
        open: p.state === 'open',
      })),
    failPullRequestCreation: (status, times = 1) =>
      fake.fail(fault(status, times, CREATE_PATH.gitea, 'gitea')),
    reportCheck: (sha, check) =>
      fake.addCommitStatus(OWNER, REPO, {
        sha,
        context: check.name,
        status: check.passed ? 'success' : 'failure',
        description: check.details,
      }),
    failCiReads: (status, times = 1) =>
      fake.fail({
        status,
        method: 'GET',
        path: CI_PATH.gitea,
        times,
        body: { message: 'Service Unavailable' },
      }),
    ciReads: () => fake.requests.filter((r) => CI_PATH.gitea.test(r.url.split('?')[0]!)).length,
    secretLeaks: () => fake.secretLeaks,
    recordedText: () => fake.recordedText(),
    stop: async () => {
      await link.close();
      await fake.stop();
    },
  };
}

/** A refusal in the host's own error format. */
function fault(status: number, times: number, path: RegExp, kind: HostKind): ScriptedFault {
  const message =
    status === 422 ? 'Validation Failed: the pull request cannot be created' : 'Internal Server Error';
  const body =
    kind === 'github'
      ? status === 422
        ? {
            message: 'Validation Failed',
            errors: [{ resource: 'PullRequest', code: 'custom', message }],
            documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
          }
        : { message, documentation_url: 'https://docs.github.com/rest' }
      : { message };
  return { status, method: 'POST', path, times, body };
}
