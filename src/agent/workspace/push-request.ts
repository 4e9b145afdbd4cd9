// Pushes a new job branch with one HTTP request and one git process instead of `git push`: the
// commits are packed by `git pack-objects` and POSTed with the ref's command to
// <repository>/git-receive-pack, git's smart HTTP push (gitprotocol-http(5), gitprotocol-pack(5):
// "report-status"), with the same Authorization header git sends, through src/net/outbound-http
// with the repositories' address policy, like remote-refs.ts does for ls-refs. `git push` costs
// three processes (git, git-remote-http, pack-objects) and two requests (the GET of
// info/refs?service=git-receive-pack, whose refs it needs to know what to send, then the POST);
// here what to send is known already: the commits from the job's base to its new commit, for a
// branch the host does not have (its old value is the zero id), so the GET is not needed.
//
// It answers true only when the host said, in git's own words, that the pack was unpacked and
// the ref set ("unpack ok", "ok refs/heads/<branch>"). Anything else answers false and the caller
// runs `git push` as before: a refused token, a redirect, a host that is not smart HTTP, no
// answer, a timeout, or a refusal of the ref ("ng", e.g. a protected branch, or a branch that
// exists already). `git push` then asks the host itself and reports in git's words, so every
// failure is classified as it was; and where this request did update the ref but its answer was
// lost, `git push` finds the branch at the commit already and succeeds ("Everything up-to-date").
// Nothing of the host's answer ends up in a message, so nothing needs scrubbing.
import { OutboundFailedError, type OutboundPolicy, outboundRequest } from '../../net/outbound-http/index.ts';

/** Origins this push could not reach or read, and when: git alone pushes to them for a while. */
const leftToGit = new Map<string, number>();
const LEFT_TO_GIT_FOR_MS = 10 * 60_000;

/** As long as git itself waits for a stalled host (http.lowSpeedTime, git-env.ts). */
const PUSH_TIMEOUT_MS = 120_000;
/** The report of one ref is a few lines; a longer answer is not the one asked for. */
const MAX_ANSWER_BYTES = 64 * 1024;

const ZERO_ID = '0'.repeat(40);

function pktLine(text: string): string {
  return (Buffer.byteLength(text) + 4).toString(16).padStart(4, '0') + text;
}

/** The request body: one command creating `ref` at `commit`, a flush packet, then the pack. */
export function receivePackRequest(ref: string, commit: string, pack: Buffer): Buffer {
  // No side-band: the report comes as plain packet lines, and the host's progress text (which
  // a careless host may fill with anything) is not asked for.
  const command = pktLine(`${ZERO_ID} ${commit} ${ref}\0report-status agent=git/docwright\n`);
  return Buffer.concat([Buffer.from(`${command}0000`, 'latin1'), pack]);
}

/**
 * True when the answer is exactly "unpack ok" and "ok <ref>" (then a flush packet); false for
 * anything else, a refusal ("ng <ref> <reason>", "unpack <error>") included.
 */
export function reportSaysPushed(answer: string, ref: string): boolean {
  const lines: string[] = [];
  let at = 0;
  while (at + 4 <= answer.length) {
    const head = answer.slice(at, at + 4);
    if (!/^[0-9a-f]{4}$/.test(head)) return false;
    const length = Number.parseInt(head, 16);
    if (length === 0) {
      if (at + 4 !== answer.length) return false;
      return lines.length === 2 && lines[0] === 'unpack ok' && lines[1] === `ok ${ref}`;
    }
    if (length < 5 || at + length > answer.length) return false;
    lines.push(answer.slice(at + 4, at + length).replace(/\n$/, ''));
    at += length;
  }
  return false;
}

export interface PushRequest {
  repositoryUrl: string;
  authorization: string | null;
  /** The full ref name, refs/heads/<branch>; the host must not have it yet. */
  ref: string;
  /** The commit the ref is to name (SHA-1). */
  commit: string;
  /** What `git pack-objects --stdout --revs` wrote for `<commit> ^<base>`. */
  pack: Buffer;
  policy: OutboundPolicy;
  signal?: AbortSignal;
}

/** Whether this origin is to be pushed to by git alone for now (the pack need not be made). */
export function pushLeftToGit(repositoryUrl: string): boolean {
  const origin = new URL(repositoryUrl).origin;
  return Date.now() - (leftToGit.get(origin) ?? Number.NEGATIVE_INFINITY) < LEFT_TO_GIT_FOR_MS;
}

function leaveToGit(origin: string): void {
  leftToGit.delete(origin);
  leftToGit.set(origin, Date.now());
  // Forgets the oldest first, so the map stays small.
  while (leftToGit.size > 1000) leftToGit.delete(leftToGit.keys().next().value!);
}

/** Sends the push; true when the host set the ref (see above), false when git is to push. */
export async function pushByRequest(push: PushRequest): Promise<boolean> {
  const url = new URL(`${push.repositoryUrl.replace(/\/+$/, '')}/git-receive-pack`);
  if (pushLeftToGit(push.repositoryUrl)) return false;
  try {
    const response = await outboundRequest(url, {
      method: 'POST',
      headers: {
        ...(push.authorization === null ? {} : { authorization: push.authorization }),
        'content-type': 'application/x-git-receive-pack-request',
        accept: 'application/x-git-receive-pack-result',
        'user-agent': 'git/docwright',
      },
      body: receivePackRequest(push.ref, push.commit, push.pack),
      // A redirect is not followed (git follows or refuses it, per http.followRedirects).
      timeoutMs: PUSH_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      policy: push.policy,
      signal: push.signal,
    });
    const report =
      response.status === 200 &&
      !response.truncated &&
      response.headers['content-type']?.split(';')[0]?.trim() === 'application/x-git-receive-pack-result';
    // A host that does not speak this (no smart HTTP without the GET first, another answer) is
    // left to git for a while; a refused token or ref is git's to report, and asked again next time.
    if (!report && response.status !== 401 && response.status !== 403) leaveToGit(url.origin);
    return report && reportSaysPushed(response.body.toString('latin1'), push.ref);
  } catch (error) {
    // No answer (TLS, network): that host is left to git for a while. A refused address or a
    // cancelled job is git's to meet as before.
    if (error instanceof OutboundFailedError && !error.timedOut && !push.signal?.aborted)
      leaveToGit(url.origin);
    return false;
  }
}
