// Asks the code host where some of the repository's refs point, with one HTTP request and no git
// process: git's protocol v2 `ls-refs` command, POSTed to <repository>/git-upload-pack with the
// same Authorization header a fetch sends (gitprotocol-v2(5), gitprotocol-http(5)), through
// src/net/outbound-http with the repositories' address policy (checked on the address connected
// to, like every request docwright makes to a user-chosen URL). A later job
// uses it to learn that its branches have not moved, which makes the fetch unnecessary (mirror.ts,
// docs/agent-jobs.md "A fetch only when the branch moved"). A `git fetch` that finds nothing new
// costs two processes (git, git-remote-http) and two requests (the capability advertisement, then
// ls-refs), ~25–35 ms on the benchmark's local host; this costs one request, ~7–9 ms.
//
// It answers null whenever it cannot be sure: any answer other than a well-formed v2 listing
// (a refused token, a redirect, a server without protocol v2, a network error, a timeout). The
// caller then runs `git fetch` as before, which reports the failure in git's words, so every
// failure is classified the way it was. It is not used when the process has proxy settings for
// git (curl's variables, which Node's fetch does not honour: a direct request might not get out).
// Certificate settings for git (GIT_SSL_CAINFO...) are not Node's either: where Node cannot verify
// the host, the probe fails and that host is left to git for the next ten minutes.
import { OutboundFailedError, type OutboundPolicy, outboundRequest } from '../../net/outbound-http/index.ts';

/** The variables that send git's requests through a proxy; with any of them set, git does the asking. */
const PROXY_VARIABLES = ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'] as const;

/** Origins whose probe failed without an HTTP answer (TLS, network), and when: git alone asks them. */
const unreachable = new Map<string, number>();
const UNREACHABLE_FOR_MS = 10 * 60_000;

/** The probe gives up (and git fetches) after this long: a slow host is git's to report. */
const PROBE_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 1 << 20;

export function canProbe(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.every((name) => !env[name]);
}

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, '0') + text;
}

/** The request body: ls-refs of exactly the refs asked for ("HEAD" or "refs/heads/<name>"). */
export function lsRefsRequest(refs: readonly string[]): string {
  return `${pktLine('command=ls-refs\n')}0001${refs.map((ref) => pktLine(`ref-prefix ${ref}\n`)).join('')}0000`;
}

/**
 * The refs of a v2 ls-refs answer (`<oid> <name>[ <attribute>...]` lines, then a flush packet), or
 * null when the answer is anything else.
 */
export function parseLsRefs(answer: string): Map<string, string> | null {
  const refs = new Map<string, string>();
  let at = 0;
  while (at + 4 <= answer.length) {
    const length = Number.parseInt(answer.slice(at, at + 4), 16);
    if (!/^[0-9a-f]{4}$/.test(answer.slice(at, at + 4)) || Number.isNaN(length)) return null;
    if (length === 0) return at + 4 === answer.length ? refs : null;
    if (length < 5 || at + length > answer.length) return null;
    const line = answer.slice(at + 4, at + length).replace(/\n$/, '');
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+)(?: .*)?$/.exec(line);
    if (!match) return null;
    refs.set(match[2]!, match[1]!);
    at += length;
  }
  return null;
}

/**
 * Where each of `refs` points on the host (absent from the map: the host has no such ref), or
 * null when the host's answer could not be had or read.
 */
export async function remoteRefs(
  repositoryUrl: string,
  authorization: string | null,
  refs: readonly string[],
  policy: OutboundPolicy,
  signal?: AbortSignal,
): Promise<Map<string, string> | null> {
  const url = new URL(`${repositoryUrl.replace(/\/+$/, '')}/git-upload-pack`);
  if (Date.now() - (unreachable.get(url.origin) ?? Number.NEGATIVE_INFINITY) < UNREACHABLE_FOR_MS)
    return null;
  try {
    const response = await outboundRequest(url, {
      method: 'POST',
      headers: {
        ...(authorization === null ? {} : { authorization }),
        'git-protocol': 'version=2',
        'content-type': 'application/x-git-upload-pack-request',
        accept: 'application/x-git-upload-pack-result',
        'user-agent': 'git/docwright',
      },
      body: lsRefsRequest(refs),
      // A redirect is not followed (git follows or refuses it, per http.followRedirects).
      timeoutMs: PROBE_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      policy,
      signal,
    });
    if (response.status !== 200 || response.truncated) return null;
    // Byte for byte: packet lengths count bytes. A name that is not ASCII then matches nothing
    // asked for, and git fetches.
    const listed = parseLsRefs(response.body.toString('latin1'));
    if (listed === null) return null;
    // ref-prefix also lists longer names ("main-old" for "main"): only exact ones are answers.
    return new Map(refs.flatMap((ref) => (listed.has(ref) ? [[ref, listed.get(ref)!] as const] : [])));
  } catch (error) {
    // No answer (TLS, network): that host is left to git for a while. A refused address or a
    // cancelled job is git's to meet as before (the address was checked before the run).
    if (error instanceof OutboundFailedError && !error.timedOut && !signal?.aborted) {
      unreachable.delete(url.origin);
      unreachable.set(url.origin, Date.now());
      // Forgets the oldest first, so the map stays small.
      while (unreachable.size > 1000) unreachable.delete(unreachable.keys().next().value!);
    }
    return null;
  }
}
