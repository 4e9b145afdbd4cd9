// Which AI assistant, if any, sent a human reader: the referrer's host, or the utm_source the
// assistant added to the link, matched against data/ai-referrers.json. Only the host of a referrer
// is ever looked at (and only the assistant's name is kept); the rest of the URL is not read.
// Referrers repeat (every reader of a search engine sends the same one), so verdicts are memoised.
// The curated list and a synced one (referrer-sync.ts) are checked by the same rules.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { Value } from 'typebox/value';

export interface Assistant {
  name: string;
  operator: string;
}

/** One assistant of the list, as data/ai-referrers.json and a synced version hold it. */
export interface ReferrerEntry {
  name: string;
  operator: string;
  hosts: string[];
  utmSources: string[];
  sources: string[];
  notes?: string;
}

export const DEFAULT_REFERRER_LIST_PATH = fileURLToPath(
  new URL('../../../../data/ai-referrers.json', import.meta.url),
);

// A host as a referrer carries it: lower case, at least two labels, no port or path (matching is on
// the host and its parent domains, so "com" alone would claim every .com referrer).
const HOST_PATTERN = '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$';

const EntrySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    operator: Type.String({ minLength: 1, maxLength: 100 }),
    hosts: Type.Array(Type.String({ maxLength: 253, pattern: HOST_PATTERN })),
    utmSources: Type.Array(Type.String({ minLength: 1, maxLength: 100 })),
    sources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    notes: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const ListSchema = Type.Object({
  description: Type.Optional(Type.String()),
  compiledOn: Type.Optional(Type.String()),
  assistants: Type.Array(EntrySchema),
});

export class ReferrerListError extends Error {
  constructor(source: string, problems: string[]) {
    super(`AI-referrer list ${source} is invalid: ${problems.join('; ')}`);
    this.name = 'ReferrerListError';
  }
}

/**
 * Checks a parsed list: its shape, and that every assistant can match something and no host,
 * utm_source or name belongs to two assistants (which one a view went to would depend on order).
 */
export function parseReferrerListDocument(document: unknown, source: string): ReferrerEntry[] {
  if (!Value.Check(ListSchema, document)) {
    const problems = [...Value.Errors(ListSchema, document)]
      .slice(0, 10)
      .map((error) => `${error.instancePath || '/'} ${error.message}`);
    throw new ReferrerListError(source, problems);
  }
  const entries = (document as { assistants: ReferrerEntry[] }).assistants;
  checkEntries(entries, source);
  return entries;
}

/** The rules across entries; also applied to the curated list and a synced one put together. */
export function checkEntries(entries: readonly ReferrerEntry[], source: string): void {
  const problems: string[] = [];
  const owners = new Map<string, string>();
  const claim = (key: string, name: string) => {
    const owner = owners.get(key);
    if (owner !== undefined && owner !== name) problems.push(`${key} belongs to both ${owner} and ${name}`);
    owners.set(key, name);
  };
  const names = new Set<string>();
  for (const entry of entries) {
    if (names.has(entry.name.toLowerCase())) problems.push(`${entry.name} is listed twice`);
    names.add(entry.name.toLowerCase());
    if (entry.hosts.length === 0 && entry.utmSources.length === 0) {
      problems.push(`${entry.name}: no hosts or utmSources, so it can never match`);
    }
    for (const host of entry.hosts) claim(`host ${host}`, entry.name);
    for (const utm of entry.utmSources) claim(`utm_source ${utm.toLowerCase()}`, entry.name);
  }
  if (problems.length > 0) throw new ReferrerListError(source, problems.slice(0, 10));
}

/** Reads and checks a list in docwright's format from a file. */
export function loadReferrerList(path: string = DEFAULT_REFERRER_LIST_PATH): ReferrerEntry[] {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ReferrerListError(path, [`cannot be read as JSON (${(error as Error).message})`]);
  }
  return parseReferrerListDocument(document, path);
}
/** Referrers remembered before the memo is emptied, and the longest one remembered (bounded memory). */
const MEMO_LIMIT = 10_000;
const MEMO_MAX_LENGTH = 512;
const HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#:]+)/i;
const UTM_SOURCE = /[?&]utm_source=([^&#]*)/;

export class AiReferrers {
  readonly #byHost = new Map<string, Assistant>();
  readonly #byUtm = new Map<string, Assistant>();
  readonly #memo = new Map<string, Assistant | null>();
  /** Every assistant of the list, by name. */
  readonly assistants = new Map<string, Assistant>();
  /** The entries it was built from, curated first. */
  readonly entries: readonly ReferrerEntry[];
  /** The curated entries alone, which a newer synced version is added to. */
  readonly curated: readonly ReferrerEntry[];

  constructor(entries: readonly ReferrerEntry[], curated: readonly ReferrerEntry[] = entries) {
    this.entries = entries;
    this.curated = curated;
    for (const entry of entries) {
      const assistant = { name: entry.name, operator: entry.operator };
      this.assistants.set(entry.name, assistant);
      for (const host of entry.hosts) this.#byHost.set(host.toLowerCase(), assistant);
      for (const source of entry.utmSources) this.#byUtm.set(source.toLowerCase(), assistant);
    }
  }

  /** The assistant a view came from: its referrer's host first, else its utm_source; null when none. */
  assistantOf(referrer: string | undefined, utmSource: string | null | undefined): Assistant | null {
    if (referrer) {
      let found = this.#memo.get(referrer);
      if (found === undefined) {
        found = this.#ofHost(HOST.exec(referrer)?.[1]);
        if (referrer.length <= MEMO_MAX_LENGTH) {
          if (this.#memo.size >= MEMO_LIMIT) this.#memo.clear();
          this.#memo.set(referrer, found);
        }
      }
      if (found !== null) return found;
    }
    if (utmSource) return this.#byUtm.get(utmSource.trim().toLowerCase()) ?? null;
    return null;
  }

  /** A host or any parent domain of it in the list (www.perplexity.ai is perplexity.ai). */
  #ofHost(host: string | undefined): Assistant | null {
    if (host === undefined) return null;
    let name = host.toLowerCase();
    for (;;) {
      const found = this.#byHost.get(name);
      if (found !== undefined) return found;
      const dot = name.indexOf('.');
      if (dot < 0 || name.indexOf('.', dot + 1) < 0) return null;
      name = name.slice(dot + 1);
    }
  }
}

/** The utm_source of a page's URL or path text; null when it has none (or it is malformed). */
export function utmSourceOf(target: string | undefined): string | null {
  if (target === undefined || !target.includes('utm_source=')) return null;
  const raw = UTM_SOURCE.exec(target)?.[1];
  if (raw === undefined) return null;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return null;
  }
}

let curated: AiReferrers | null = null;

/** The list shipped in data/ai-referrers.json, read and checked once. */
export function curatedAiReferrers(): AiReferrers {
  curated ??= new AiReferrers(loadReferrerList());
  return curated;
}
