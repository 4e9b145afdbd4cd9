// Which of a base's pages name a changed page, answered from memory instead of a `git grep` per
// job. The checks ask it for every name a job's change gives (docs/docs-checks.md): a grep over a
// 10,000-page base was the largest git process of a later job after the push (~37 ms,
// docs/agent-jobs.md).
//
// What is kept: per blob id, the words of its text (the runs of [A-Za-z0-9_-], each once). A
// blob's text never changes, so the words are right for every base and repository holding that
// blob, and a base that moved keeps the words of every page it did not change: only the pages
// whose blob is new are read (one git process for up to MAX_INLINE of them), which is the index
// "updated incrementally from the previous base" without having to diff bases.
//
// Why words answer the question exactly: the snapshot keeps a page when `name` occurs in its text
// as a whole path segment, `(^|[^\w-])name($|[^\w-])` (snapshot.ts). Then each run of [\w-] in
// `name` is a whole run of the text, so a page whose words lack one of them cannot match; a page
// holding all of them may, and the snapshot reads it and applies that test itself (a superset is
// what a search may answer). A name without any such run is left to git grep.
//
// The first time a repository's base has many unread pages (its first job in this process), the
// answer is git grep, as before, and nothing else is done: a repository that gets one job never
// pays for the words. From its next job on, the words of the whole base are read once in the
// background (one `git grep` printing every line, ~10 MB for 10,000 pages) while that job still
// uses git grep; the jobs after it use the words.
import { PAGE_EXTENSIONS } from '../../docs-checks/index.ts';
import type { JobWorkspace } from '../workspace/job-workspace.ts';

/** Git pathspecs of the pages ("*.md" matches in every directory). */
export const PAGE_GLOBS: readonly string[] = PAGE_EXTENSIONS.map((extension) => `*${extension}`);

const WORD = /[A-Za-z0-9_-]+/g;

/** Blobs whose words are kept, over all repositories. */
const MAX_BLOBS = 50_000;
/**
 * Characters of words kept, over all repositories (a page of prose keeps roughly half its size;
 * the benchmark's 10,000 pages keep ~2 MB). A base whose words would take more than half of it is
 * left to git grep, so one base's read never pushes out its own words.
 */
const MAX_CHARS = 64 * 1024 * 1024;
/** New blobs read while a job waits (one git process, their paths on its command line). */
const MAX_INLINE = 500;
/** Pages whose words are made between two turns of the event loop. */
const YIELD_EVERY = 250;
/** Larger bases are left to git grep (their words would not stay kept). */
const MAX_PAGES = MAX_BLOBS / 2;

/** Blob id → "\nword\nword\n": the distinct words of its text ("" for a binary or empty blob). */
const wordsByBlob = new Map<string, string>();
let keptChars = 0;

function remember(oid: string, words: string): void {
  if (wordsByBlob.has(oid)) return;
  wordsByBlob.set(oid, words);
  keptChars += words.length;
  // Oldest first: a base missing a dropped blob reads it again (or greps) at its next search.
  while (wordsByBlob.size > MAX_BLOBS || keptChars > MAX_CHARS) {
    const [oldest, dropped] = wordsByBlob.entries().next().value!;
    wordsByBlob.delete(oldest);
    keptChars -= dropped.length;
  }
}

/** The distinct words of a text's lines, in the form `wordsByBlob` keeps. */
export function wordsOf(lines: Iterable<string>): string {
  const words = new Set<string>();
  for (const line of lines) for (const word of line.match(WORD) ?? []) words.add(word);
  return words.size === 0 ? '' : `\n${[...words].join('\n')}\n`;
}

/** Repositories whose base was searched before in this process (see the page's head). */
const searchedRepositories = new Set<string>();

/** Forgets every kept word (tests: a process that never read any base). */
export function clearBaseMentions(): void {
  wordsByBlob.clear();
  keptChars = 0;
  searchedRepositories.clear();
}

export class BaseMentions {
  readonly #repository: string;
  /** Page path → its blob id at the base. */
  readonly #pages: ReadonlyMap<string, string>;
  readonly #workspace: () => JobWorkspace;
  /** Reading the words of the pages that lack them; null when none is under way. */
  #filling: Promise<boolean> | null = null;
  /** The read under way is the whole base's (in the background). */
  #readingAll = false;
  /** A read failed (e.g. a path git prints ambiguously): git grep for this base from now on. */
  #broken = false;

  constructor(repository: string, pages: ReadonlyMap<string, string>, workspace: () => JobWorkspace) {
    this.#repository = repository;
    this.#pages = pages;
    this.#workspace = workspace;
    // git prints a path with a newline as two lines (baseLines): such a base is left to git grep.
    for (const path of pages.keys()) if (path.includes('\n')) this.#broken = true;
  }

  /** The base's pages that may name `name` as a whole path segment (a superset, see above). */
  async search(name: string): Promise<string[]> {
    const needles = (name.match(WORD) ?? []).map((word) => `\n${word}\n`);
    if (needles.length === 0 || !(await this.#ready())) return this.#grep(name);
    const found: string[] = [];
    for (const [path, oid] of this.#pages) {
      const words = wordsByBlob.get(oid);
      // Dropped since #ready (another base's read): a candidate, which the snapshot then tests.
      if (words === undefined || needles.every((needle) => words.includes(needle))) found.push(path);
    }
    return found;
  }

  #grep(name: string): Promise<string[]> {
    searchedRepositories.add(this.#repository);
    return this.#workspace().grepBase(name, PAGE_GLOBS);
  }

  /** True when every page's words are kept (read now if few are missing). */
  #ready(): Promise<boolean> {
    if (this.#broken || this.#pages.size > MAX_PAGES) return Promise.resolve(false);
    // A whole base being read: git grep meanwhile (reading it takes longer than one search).
    if (this.#filling) return this.#readingAll ? Promise.resolve(false) : this.#filling;
    const missing: string[] = [];
    for (const [path, oid] of this.#pages) if (!wordsByBlob.has(oid)) missing.push(path);
    if (missing.length === 0) return Promise.resolve(true);
    if (missing.length <= MAX_INLINE) return this.#fill(missing);
    if (!searchedRepositories.has(this.#repository)) return Promise.resolve(false);
    // Read in the background; this search and those until it ends use git grep.
    void this.#fill(null);
    return Promise.resolve(false);
  }

  /** Reads the words of `paths` (null: every page) at the base; false when that failed. */
  #fill(paths: readonly string[] | null): Promise<boolean> {
    this.#readingAll = paths === null;
    const filling = (async () => {
      try {
        const lines = await this.#workspace().baseLines(paths ?? PAGE_GLOBS, paths !== null);
        for (const path of lines.keys())
          if (!this.#pages.has(path)) throw new Error(`the base's pages do not hold ${path}`);
        const made: [string, string][] = [];
        let chars = 0;
        for (const path of paths ?? [...this.#pages.keys()]) {
          const oid = this.#pages.get(path);
          if (oid === undefined) continue;
          const words = wordsOf(lines.get(path) ?? []);
          made.push([oid, words]);
          chars += words.length;
          // A whole base is read beside running jobs: let their work in between.
          if (made.length % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        if (paths === null && chars > MAX_CHARS / 2) throw new Error('too many words to keep');
        for (const [oid, words] of made) remember(oid, words);
        return true;
      } catch (error) {
        // A cancelled job's git is killed: another job may read them. Anything else stays broken.
        if ((error as Error).name !== 'AbortError') this.#broken = true;
        return false;
      } finally {
        this.#filling = null;
      }
    })();
    this.#filling = filling;
    return filling;
  }
}
