// Web Bot Auth verification (IETF drafts "HTTP Message Signatures for automated traffic" and
// "HTTP Message Signatures Directory", on RFC 9421): a request signed with an Ed25519 key whose
// Signature-Agent directory publishes that key is attributed to that Signature-Agent.
//
// Each way to fail has its own outcome, so the evidence says what happened: `expired` (outside
// created/expires), `unknown_key` (the directory has no key with that keyid: signed with the
// wrong key), `bad_signature` (the key is right but the message differs from what was signed:
// tampered), `malformed`, `unsupported`, `agent_not_covered`, `agent_url_refused`,
// `directory_unavailable`, and `directory_pending` when the directory did not answer within the
// per-record wait (the fetch goes on in the background and later records use its result).

import { verify as verifySignature } from 'node:crypto';
import type { RequestRecord, WebBotAuthEvidence } from '../types.ts';
import { type DirectoryState, KeyDirectoryCache, type KeyDirectoryOptions } from './key-directory.ts';
import { buildSignatureBase, ComponentError } from './signature-base.ts';
import { lowerCaseHeaders, signedRequestOf } from './signed-request.ts';
import {
  ByteSequence,
  type InnerList,
  type Item,
  isInnerList,
  parseDictionary,
  parseItem,
  StructuredFieldError,
  Token,
} from './structured-fields.ts';

export const WEB_BOT_AUTH_TAG = 'web-bot-auth';

export interface WebBotAuthOptions extends KeyDirectoryOptions {
  /** Share one directory cache between verifiers; built from the other options when absent. */
  directory?: KeyDirectoryCache;
  /** How long one record may wait for an uncached directory before it is `directory_pending`. */
  waitMs?: number;
  /** Tolerance for clocks that disagree, applied to created and expires. */
  clockSkewSeconds?: number;
}

interface SignatureClaim {
  params: InnerList;
  signature: Buffer;
  keyid: string;
  created: number;
  expires: number;
  agentOrigin: string;
}

type Reading = { claim: SignatureClaim } | { evidence: WebBotAuthEvidence } | null;

function outcome(
  kind: WebBotAuthEvidence['outcome'],
  detail: string,
  extra: Partial<WebBotAuthEvidence> = {},
): { evidence: WebBotAuthEvidence } {
  return { evidence: { outcome: kind, detail, ...extra } };
}

function agentUrlOf(covered: Item, headers: Map<string, string>): string | { error: string } {
  const raw = headers.get('signature-agent');
  if (raw === undefined) return { error: 'the Signature-Agent header is covered but absent' };
  const key = covered.params.get('key');
  let item: Item;
  try {
    if (typeof key === 'string') {
      const member = parseDictionary(raw).get(key);
      if (member === undefined || isInnerList(member))
        return { error: `Signature-Agent has no member "${key}"` };
      item = member;
    } else {
      // The older form: the whole header is one String.
      item = parseItem(raw);
    }
  } catch (error) {
    if (error instanceof StructuredFieldError)
      return { error: `Signature-Agent is malformed: ${error.message}` };
    throw error;
  }
  if (typeof item.value !== 'string') return { error: 'Signature-Agent must carry a URL string' };
  const type = item.params.get('type');
  if (type !== undefined && !(type instanceof Token && type.value === 'directory')) {
    return { error: 'only the "directory" Signature-Agent type is supported' };
  }
  return item.value;
}

function originOf(agentUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(agentUrl);
  } catch {
    return null;
  }
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    return null;
  }
  return url.origin;
}

/** Reads the first Web Bot Auth signature of a request; null when there is none. */
function readSignature(headers: Map<string, string>): Reading {
  const inputHeader = headers.get('signature-input');
  const signatureHeader = headers.get('signature');
  if (inputHeader === undefined || signatureHeader === undefined) return null;
  let inputs: ReturnType<typeof parseDictionary>;
  let signatures: ReturnType<typeof parseDictionary>;
  try {
    inputs = parseDictionary(inputHeader);
    signatures = parseDictionary(signatureHeader);
  } catch (error) {
    if (error instanceof StructuredFieldError)
      return outcome('malformed', `signature headers: ${error.message}`);
    throw error;
  }
  const found = [...inputs].find(
    ([, member]) => isInnerList(member) && member.params.get('tag') === WEB_BOT_AUTH_TAG,
  );
  if (found === undefined) return null;
  const [label, member] = found as [string, InnerList];
  const signatureMember = signatures.get(label);
  if (
    signatureMember === undefined ||
    isInnerList(signatureMember) ||
    !(signatureMember.value instanceof ByteSequence)
  ) {
    return outcome('malformed', `no Signature value for label "${label}"`);
  }
  const { keyid, created, expires, alg } = Object.fromEntries(member.params);
  if (typeof keyid !== 'string' || typeof created !== 'number' || typeof expires !== 'number') {
    return outcome('malformed', 'keyid, created and expires are required');
  }
  if (alg !== undefined && alg !== 'ed25519')
    return outcome('unsupported', `algorithm ${String(alg)} is not supported`, { keyid });
  const covered = member.items.find((item) => item.value === 'signature-agent');
  if (covered === undefined)
    return outcome('agent_not_covered', 'the signature does not cover Signature-Agent', { keyid });
  if (!member.items.some((item) => item.value === '@authority' || item.value === '@target-uri')) {
    return outcome('unsupported', 'the signature covers neither @authority nor @target-uri', { keyid });
  }
  const agentUrl = agentUrlOf(covered, headers);
  if (typeof agentUrl !== 'string') return outcome('malformed', agentUrl.error, { keyid });
  const agentOrigin = originOf(agentUrl);
  if (agentOrigin === null) {
    return outcome('agent_url_refused', 'Signature-Agent must be an origin URL', {
      keyid,
      signatureAgent: agentUrl,
    });
  }
  return {
    claim: { params: member, signature: signatureMember.value.bytes, keyid, created, expires, agentOrigin },
  };
}

export class WebBotAuthVerifier {
  readonly directory: KeyDirectoryCache;
  readonly #waitMs: number;
  readonly #skew: number;

  constructor(options: WebBotAuthOptions = {}) {
    this.directory = options.directory ?? new KeyDirectoryCache(options);
    this.#waitMs = options.waitMs ?? 1500;
    this.#skew = options.clockSkewSeconds ?? 60;
  }

  /** Cheap check used before any parsing: does the record carry signature headers at all? */
  static carriesSignature(record: RequestRecord): boolean {
    if (!record.headers) return false;
    let input = false;
    let signature = false;
    for (const name of Object.keys(record.headers)) {
      const lower = name.toLowerCase();
      if (lower === 'signature-input') input = true;
      else if (lower === 'signature') signature = true;
    }
    return input && signature;
  }

  async #directoryState(origin: string): Promise<DirectoryState | 'pending'> {
    const cached = this.directory.cached(origin);
    if (cached !== undefined) return cached;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'pending'>((resolve) => {
      timer = setTimeout(() => resolve('pending'), this.#waitMs);
      timer.unref();
    });
    try {
      return await Promise.race([this.directory.load(origin), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Verifies the record's Web Bot Auth signature as of `atSeconds` (the request's own time, so
   * imported logs are judged by when the request was made). Null when the record is not signed
   * for Web Bot Auth.
   */
  async verify(record: RequestRecord, atSeconds: number): Promise<WebBotAuthEvidence | null> {
    if (!WebBotAuthVerifier.carriesSignature(record)) return null;
    const headers = lowerCaseHeaders(record.headers);
    const reading = readSignature(headers);
    if (reading === null) return null;
    if ('evidence' in reading) return reading.evidence;
    const { claim } = reading;
    const who = { signatureAgent: claim.agentOrigin, keyid: claim.keyid };
    if (claim.expires < atSeconds - this.#skew) {
      return { outcome: 'expired', detail: `the signature expired at ${claim.expires}`, ...who };
    }
    if (claim.created > atSeconds + this.#skew) {
      return {
        outcome: 'not_yet_valid',
        detail: `the signature was created in the future (${claim.created})`,
        ...who,
      };
    }
    const state = await this.#directoryState(claim.agentOrigin);
    if (state === 'pending') {
      return {
        outcome: 'directory_pending',
        detail: `the key directory did not answer within ${this.#waitMs} ms`,
        ...who,
      };
    }
    if (state.status === 'failed') return { outcome: state.reason, detail: state.detail, ...who };
    const key = state.keys.find(
      (candidate) =>
        candidate.keyid === claim.keyid &&
        (candidate.nbf === undefined || candidate.nbf <= atSeconds + this.#skew) &&
        (candidate.exp === undefined || candidate.exp >= atSeconds - this.#skew),
    );
    if (key === undefined) {
      return {
        outcome: 'unknown_key',
        detail: 'the key directory publishes no valid key with this keyid',
        ...who,
      };
    }
    let base: string;
    try {
      base = buildSignatureBase(claim.params, signedRequestOf(record, headers));
    } catch (error) {
      if (error instanceof ComponentError) {
        return {
          outcome: error.kind === 'missing' ? 'malformed' : 'unsupported',
          detail: error.message,
          ...who,
        };
      }
      throw error;
    }
    let valid = false;
    try {
      valid = verifySignature(null, Buffer.from(base, 'utf8'), key.key, claim.signature);
    } catch {
      // A signature of the wrong length is simply not a valid signature.
    }
    return valid
      ? { outcome: 'valid', ...who }
      : { outcome: 'bad_signature', detail: 'the signature does not match the request', ...who };
  }
}
