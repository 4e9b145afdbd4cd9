// Which AI assistant, if any, sent a human reader: the referrer's host, or the utm_source the
// assistant added to the link, matched against data/ai-referrers.json. Only the host of a referrer
// is ever looked at (and only the assistant's name is kept); the rest of the URL is not read.
// Referrers repeat (every reader of a search engine sends the same one), so verdicts are memoised.
import { readFileSync } from 'node:fs';

export interface Assistant {
  name: string;
  operator: string;
}

interface ListEntry {
  name: string;
  operator: string;
  hosts: string[];
  utmSources: string[];
}

const LIST_URL = new URL('../../../../data/ai-referrers.json', import.meta.url);
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

  constructor(entries: readonly ListEntry[]) {
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

/** The list shipped in data/ai-referrers.json, read once. */
export function curatedAiReferrers(): AiReferrers {
  if (curated === null) {
    const parsed = JSON.parse(readFileSync(LIST_URL, 'utf8')) as { assistants: ListEntry[] };
    curated = new AiReferrers(parsed.assistants);
  }
  return curated;
}
