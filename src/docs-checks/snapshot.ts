// A repository's docs as the checks see them at one point (the job's base, or its branch now):
// its file list, the text of its pages and navigation configs, and each page's facts, parsed when
// first needed and then kept. The branch's snapshot is made from the base's: it shares the texts
// and parsed facts of every file that did not change, so a check after a small change parses
// only the changed pages and those that mention them (the base's link graph is kept).
import { type DocsFramework, detectFramework, type FrameworkInfo, forcedFramework } from './frameworks.ts';
import { type Navigation, navigationFiles, readNavigation } from './navigation.ts';
import { isPage, type PageFacts, pageFacts } from './page-facts.ts';
import { parsePages } from './parse-pool.ts';

export interface DocsSource {
  /** Every file, repository-relative with forward slashes. */
  files: readonly string[];
  /** A file's text, or null when it cannot be read as text. */
  read(path: string): Promise<string | null>;
}

export interface SnapshotOptions {
  /** A project's forced framework; absent: detected. */
  framework?: DocsFramework;
}

/** Pages over this size are not parsed (a generated page); their links are not checked. */
const MAX_PAGE_BYTES = 256 * 1024;
/** Files read at once while building. */
const READ_CONCURRENCY = 64;

/**
 * Parsed facts, shared between a base and the branches made from it: per path, the texts parsed
 * there (the base's and the branch's version of a changed page) with their facts.
 */
type FactsCache = Map<string, { text: string; facts: PageFacts }[]>;

export class DocsSnapshot {
  readonly info: FrameworkInfo;
  readonly files: ReadonlySet<string>;
  /** Pages and navigation configs: path → text. */
  readonly texts: ReadonlyMap<string, string>;
  readonly navigation: Navigation;
  private readonly facts: FactsCache;
  private readonly mdx: boolean;

  private constructor(
    info: FrameworkInfo,
    files: ReadonlySet<string>,
    texts: ReadonlyMap<string, string>,
    facts: FactsCache,
  ) {
    this.info = info;
    this.files = files;
    this.texts = texts;
    this.facts = facts;
    // Mintlify and Docusaurus (v3) read .md pages as MDX too.
    this.mdx = info.framework === 'mintlify' || info.framework === 'docusaurus';
    this.navigation = readNavigation(info, (path) => texts.get(path) ?? null);
  }

  /** Reads every page and navigation config of `source` (nothing is parsed yet). */
  static async build(source: DocsSource, options: SnapshotOptions = {}): Promise<DocsSnapshot> {
    const files = new Set(source.files);
    const info = options.framework ? forcedFramework(files, options.framework) : detectFramework(files);
    const wanted = [...files].filter(isPage).concat(navigationFiles(info).filter((path) => files.has(path)));
    return new DocsSnapshot(info, files, await readTexts(source, wanted), new Map());
  }

  /** The snapshot after `changed` paths changed (created, edited, deleted), `source` holding the new state. */
  async withChanges(source: DocsSource, changed: Iterable<string>): Promise<DocsSnapshot> {
    const files = new Set(this.files);
    const texts = new Map(this.texts);
    const reread: string[] = [];
    const configs = new Set(navigationFiles(this.info));
    for (const path of new Set(changed)) {
      texts.delete(path);
      files.delete(path);
      reread.push(path);
    }
    const present = new Set(source.files);
    const read = await readTexts(
      source,
      reread.filter((path) => present.has(path)),
    );
    for (const path of reread) {
      if (!present.has(path)) continue;
      files.add(path);
      const text = read.get(path);
      if (text !== undefined && (isPage(path) || configs.has(path))) texts.set(path, text);
    }
    return new DocsSnapshot(this.info, files, texts, this.facts);
  }

  /** Where the pages live, once a config (MkDocs' docs_dir) has had its say. */
  get contentRoot(): string {
    return this.navigation.contentRoot ?? this.info.contentRoot;
  }

  /** Every page (Markdown or MDX) the snapshot has the text of. */
  pages(): string[] {
    return [...this.texts.keys()].filter(isPage);
  }

  /** The page's facts, parsed now if no snapshot sharing this one's cache parsed the same text yet. */
  pageFacts(path: string): PageFacts | null {
    const text = this.texts.get(path);
    if (text === undefined || !isPage(path)) return null;
    const cached = this.cached(path, text);
    if (cached) return cached;
    const facts = pageFacts(path, text, { mdx: this.mdx });
    this.remember(path, text, facts);
    return facts;
  }

  /** Parses every page not parsed yet, on worker threads when there are many. */
  async parseAll(): Promise<void> {
    const pending = this.pages().filter((path) => !this.cached(path, this.texts.get(path)!));
    const parsed = await parsePages(
      pending.map((path) => ({ path, text: this.texts.get(path)! })),
      this.mdx,
    );
    for (const [path, facts] of parsed) this.remember(path, this.texts.get(path)!, facts);
  }

  /** Pages whose text contains `needle` (a cheap filter before parsing for links). */
  pagesMentioning(needle: string): string[] {
    const found: string[] = [];
    for (const [path, text] of this.texts) if (isPage(path) && text.includes(needle)) found.push(path);
    return found;
  }

  private cached(path: string, text: string): PageFacts | null {
    return this.facts.get(path)?.find((entry) => entry.text === text)?.facts ?? null;
  }

  private remember(path: string, text: string, facts: PageFacts): void {
    const entries = this.facts.get(path);
    if (entries) entries.push({ text, facts });
    else this.facts.set(path, [{ text, facts }]);
  }
}

async function readTexts(source: DocsSource, paths: readonly string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const text = await source.read(path);
      if (text !== null && text.length <= MAX_PAGE_BYTES) texts.set(path, text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  return texts;
}
