// A repository's docs as the checks see them at one point (the job's base, or its branch now):
// its file list, its navigation, and its pages' texts and facts, each read and parsed when first
// needed and then kept. A branch snapshot is made from the base's: it shares the texts and parsed
// facts of every file that did not change, so a check after a small change reads and parses only
// the changed pages and those that mention them (the base's link graph is kept). A source that
// can search (git grep at the base commit) spares reading every page to find those.
import { cachedFacts, rememberFacts } from './facts-cache.ts';
import { type DocsFramework, detectFramework, type FrameworkInfo, forcedFramework } from './frameworks.ts';
import { type Navigation, navigationFiles, readNavigation } from './navigation.ts';
import { isPage, type PageFacts, pageFacts, parsesAsMdx } from './page-facts.ts';
import { PageParser } from './parse-pool.ts';

export interface DocsSource {
  /** Every file, repository-relative with forward slashes. */
  files: readonly string[];
  /** A file's text, or null when it cannot be read as text. */
  read(path: string): Promise<string | null>;
  /**
   * The files whose content contains `text` (a superset is fine; only the pages of the answer are
   * used, so a source may search pages only); absent: every page is read and searched.
   */
  search?(text: string): Promise<string[]>;
}

export interface SnapshotOptions {
  /** A project's forced framework; absent: detected. */
  framework?: DocsFramework;
}

/** Pages over this size are not parsed (a generated page); their links are not checked. */
const MAX_PAGE_BYTES = 256 * 1024;
/**
 * Navigation configs larger than this are not read. A config is not a page: a 10,000-page site's
 * docs.json is about 340 KiB, and under the pages' limit it was skipped without a word, leaving
 * the navigation unchecked.
 */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/** Files read at once. */
const READ_CONCURRENCY = 64;

/**
 * Parsed facts, shared between a base and the branches made from it: per path, the texts parsed
 * there (the base's and the branch's version of a changed page) with their facts.
 */
type FactsCache = Map<string, { text: string; facts: PageFacts }[]>;

export class DocsSnapshot {
  readonly info: FrameworkInfo;
  readonly files: ReadonlySet<string>;
  readonly navigation: Navigation;
  readonly #source: DocsSource;
  /** The snapshot this one was made from, and the paths that differ from it. */
  readonly #parent: DocsSnapshot | null;
  readonly #changed: ReadonlySet<string>;
  /** Texts read so far (null: not a readable page). */
  readonly #texts = new Map<string, string | null>();
  readonly #facts: FactsCache;
  readonly #mdx: boolean;
  /** pagesMentioning's answers: a snapshot never changes, and a base is asked once per branch. */
  readonly #mentions = new Map<string, Promise<string[]>>();

  private constructor(init: {
    info: FrameworkInfo;
    files: ReadonlySet<string>;
    configTexts: ReadonlyMap<string, string>;
    source: DocsSource;
    parent: DocsSnapshot | null;
    changed: ReadonlySet<string>;
    facts: FactsCache;
  }) {
    this.info = init.info;
    this.files = init.files;
    this.#source = init.source;
    this.#parent = init.parent;
    this.#changed = init.changed;
    this.#facts = init.facts;
    for (const [path, text] of init.configTexts) this.#texts.set(path, text);
    // Mintlify and Docusaurus (v3) read .md pages as MDX too.
    this.#mdx = init.info.framework === 'mintlify' || init.info.framework === 'docusaurus';
    this.navigation = readNavigation(init.info, (path) => init.configTexts.get(path) ?? null);
  }

  /** The snapshot of `source`: its navigation is read now, its pages when needed. */
  static async build(source: DocsSource, options: SnapshotOptions = {}): Promise<DocsSnapshot> {
    const files = new Set(source.files);
    const info = options.framework ? forcedFramework(files, options.framework) : detectFramework(files);
    const configs = navigationFiles(info).filter((path) => files.has(path));
    const configTexts = await readTexts(source, configs, MAX_CONFIG_BYTES);
    return new DocsSnapshot({
      info,
      files,
      configTexts,
      source,
      parent: null,
      changed: new Set(),
      facts: new Map(),
    });
  }

  /** The snapshot after `changed` paths changed (created, edited, deleted), `source` holding the new state. */
  async withChanges(source: DocsSource, changed: Iterable<string>): Promise<DocsSnapshot> {
    const paths = new Set(changed);
    const present = new Set(source.files);
    const files = new Set(this.files);
    for (const path of paths) {
      if (present.has(path)) files.add(path);
      else files.delete(path);
    }
    const configs = navigationFiles(this.info).filter((path) => files.has(path));
    const configTexts = new Map<string, string>();
    const reread = configs.filter((path) => paths.has(path));
    for (const [path, text] of await readTexts(source, reread, MAX_CONFIG_BYTES)) configTexts.set(path, text);
    for (const path of configs) {
      const text = this.#texts.get(path);
      if (!paths.has(path) && typeof text === 'string') configTexts.set(path, text);
    }
    return new DocsSnapshot({
      info: this.info,
      files,
      configTexts,
      source,
      parent: this,
      changed: paths,
      facts: this.#facts,
    });
  }

  /** Where the pages live, once a config (MkDocs' docs_dir) has had its say. */
  get contentRoot(): string {
    return this.navigation.contentRoot ?? this.info.contentRoot;
  }

  /** Every page (Markdown or MDX) of the snapshot. */
  pages(): string[] {
    return [...this.files].filter(isPage);
  }

  /** The page's text (read now if needed), or null when it is not a readable page. */
  async text(path: string): Promise<string | null> {
    await this.load([path]);
    return this.#texts.get(path) ?? null;
  }

  /**
   * Reads the texts of `paths` not read yet (unchanged ones through the parent, which keeps them);
   * `onRead` hears of each as soon as its text is kept.
   */
  async load(paths: Iterable<string>, onRead?: (path: string) => void): Promise<void> {
    const missing = [...paths].filter((path) => !this.#texts.has(path));
    if (missing.length === 0) return;
    const parent = this.#parent;
    const fromParent = parent ? missing.filter((path) => !this.#changed.has(path)) : [];
    const own = parent ? missing.filter((path) => this.#changed.has(path)) : missing;
    if (fromParent.length > 0 && parent) {
      const take = (path: string) => {
        if (this.#texts.has(path)) return;
        this.#texts.set(path, parent.#texts.get(path) ?? null);
        onRead?.(path);
      };
      await parent.load(fromParent, take);
      for (const path of fromParent) take(path);
    }
    const keep = (path: string, text: string | null) => {
      this.#texts.set(path, text);
      onRead?.(path);
    };
    for (const path of own) if (!this.files.has(path)) keep(path, null);
    await readTexts(
      this.#source,
      own.filter((path) => this.files.has(path)),
      MAX_PAGE_BYTES,
      keep,
    );
  }

  /** The page's facts, parsed now if no snapshot sharing this one's cache parsed the same text yet. */
  async pageFacts(path: string): Promise<PageFacts | null> {
    if (!isPage(path) || !this.files.has(path)) return null;
    const text = await this.text(path);
    if (text === null) return null;
    const cached = this.#cached(path, text);
    if (cached) return cached;
    const known = cachedFacts(text, parsesAsMdx(path, this.#mdx));
    const facts = known.facts ?? pageFacts(path, text, { mdx: this.#mdx });
    if (!known.facts) rememberFacts(known.key, facts);
    this.#remember(path, text, facts);
    return facts;
  }

  /**
   * The page's facts when this snapshot already holds them (read and parsed), without an await;
   * undefined when that is not known yet (then pageFacts reads and parses it).
   */
  knownFacts(path: string): PageFacts | undefined {
    const text = this.#texts.get(path);
    if (typeof text !== 'string' || !isPage(path) || !this.files.has(path)) return undefined;
    return this.#cached(path, text) ?? undefined;
  }

  /**
   * Reads and parses every page not parsed yet (by this snapshot's family, or as the same blob by
   * any run of the process), on worker threads when there are many. Pages are handed to the
   * parser as they are read, so reading and parsing overlap.
   */
  async parseAll(): Promise<void> {
    const pages = this.pages();
    const parser = new PageParser(this.#mdx, pages.length);
    const keys = new Map<string, string>();
    // Pages go to the parser in their order as soon as they and all before them are read.
    let offered = 0;
    const offerRead = () => {
      for (; offered < pages.length && this.#texts.has(pages[offered]!); offered++) {
        const path = pages[offered]!;
        const text = this.#texts.get(path);
        if (typeof text !== 'string' || this.#cached(path, text)) {
          parser.skip();
          continue;
        }
        const known = cachedFacts(text, parsesAsMdx(path, this.#mdx));
        if (known.facts) {
          this.#remember(path, text, known.facts);
          parser.skip();
        } else {
          parser.add({ path, text });
          keys.set(path, known.key);
        }
      }
    };
    try {
      offerRead();
      await this.load(pages, offerRead);
      offerRead();
    } catch (error) {
      parser.close();
      throw error;
    }
    for (const [path, facts] of await parser.finish()) {
      rememberFacts(keys.get(path)!, facts);
      this.#remember(path, this.#texts.get(path)!, facts);
    }
  }

  /**
   * Pages whose text contains `name` as a whole path segment (page-1 is not in page-12): a cheap
   * filter before parsing pages for links.
   */
  pagesMentioning(name: string): Promise<string[]> {
    let found = this.#mentions.get(name);
    if (!found) {
      found = this.#findMentions(name);
      this.#mentions.set(name, found);
      found.catch(() => this.#mentions.delete(name));
    }
    return found;
  }

  async #findMentions(name: string): Promise<string[]> {
    let candidates: string[];
    if (this.#parent) {
      const inherited = (await this.#parent.pagesMentioning(name)).filter(
        (path) => !this.#changed.has(path) && this.files.has(path),
      );
      candidates = [
        ...inherited,
        ...[...this.#changed].filter((path) => isPage(path) && this.files.has(path)),
      ];
    } else if (this.#source.search) {
      candidates = (await this.#source.search(name)).filter((path) => isPage(path) && this.files.has(path));
    } else candidates = this.pages();
    await this.load(candidates);
    const whole = new RegExp(`(^|[^\\w-])${escapeRegExp(name)}($|[^\\w-])`);
    return candidates.filter((path) => {
      const text = this.#texts.get(path);
      return typeof text === 'string' && text.includes(name) && whole.test(text);
    });
  }

  #cached(path: string, text: string): PageFacts | null {
    return this.#facts.get(path)?.find((entry) => entry.text === text)?.facts ?? null;
  }

  #remember(path: string, text: string, facts: PageFacts): void {
    const entries = this.#facts.get(path);
    if (entries) entries.push({ text, facts });
    else this.#facts.set(path, [{ text, facts }]);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function readTexts(
  source: DocsSource,
  paths: readonly string[],
  maxBytes: number,
  each?: (path: string, text: string | null) => void,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const read = await source.read(path);
      const text = read !== null && read.length <= maxBytes ? read : null;
      if (text !== null) texts.set(path, text);
      each?.(path, text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  return texts;
}
