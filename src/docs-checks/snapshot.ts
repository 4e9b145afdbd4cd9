// A repository's docs as the checks see them: its file list, the facts of each page and the
// navigation, at one point (the job's base, or its branch now). The branch's snapshot is made
// from the base's by re-reading only the files that changed: the other pages' facts (the link
// graph) are shared, which keeps a check after a small change fast on a large repository.
import { type DocsFramework, detectFramework, type FrameworkInfo, forcedFramework } from './frameworks.ts';
import { type Navigation, navigationFiles, readNavigation } from './navigation.ts';
import { isPage, type PageFacts } from './page-facts.ts';
import { type PageToParse, parsePages } from './parse-pool.ts';

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

/** Files over this size are not parsed (a generated page); their links are not checked. */
const MAX_PAGE_BYTES = 256 * 1024;

export class DocsSnapshot {
  readonly info: FrameworkInfo;
  readonly files: ReadonlySet<string>;
  readonly pages: ReadonlyMap<string, PageFacts>;
  readonly navigation: Navigation;
  /** The config files' texts, kept so a change elsewhere does not re-read them. */
  private readonly configTexts: ReadonlyMap<string, string>;

  private constructor(
    info: FrameworkInfo,
    files: ReadonlySet<string>,
    pages: ReadonlyMap<string, PageFacts>,
    navigation: Navigation,
    configTexts: ReadonlyMap<string, string>,
  ) {
    this.info = info;
    this.files = files;
    this.pages = pages;
    this.navigation = navigation;
    this.configTexts = configTexts;
  }

  static async build(source: DocsSource, options: SnapshotOptions = {}): Promise<DocsSnapshot> {
    const files = new Set(source.files);
    const info = options.framework ? forcedFramework(files, options.framework) : detectFramework(files);
    const pages = await parseAll(source, [...files].filter(isPage), info);
    const configTexts = await readConfigs(source, info, files);
    return new DocsSnapshot(info, files, pages, withRoot(info, configTexts), configTexts);
  }

  /** The snapshot after `changed` paths changed (created, edited, deleted), `source` holding the new state. */
  async withChanges(source: DocsSource, changed: Iterable<string>): Promise<DocsSnapshot> {
    const files = new Set(source.files);
    const pages = new Map(this.pages);
    const changedPaths = new Set(changed);
    const toParse: string[] = [];
    for (const path of changedPaths) {
      pages.delete(path);
      if (files.has(path) && isPage(path)) toParse.push(path);
    }
    for (const [path, facts] of await parseAll(source, toParse, this.info)) pages.set(path, facts);
    const configs = navigationFiles(this.info);
    const configChanged = configs.some((path) => changedPaths.has(path));
    const configTexts = configChanged ? await readConfigs(source, this.info, files) : this.configTexts;
    const navigation = configChanged ? withRoot(this.info, configTexts) : this.navigation;
    return new DocsSnapshot(this.info, files, pages, navigation, configTexts);
  }

  /** Where the pages live, once a config (MkDocs' docs_dir) has had its say. */
  get contentRoot(): string {
    return this.navigation.contentRoot ?? this.info.contentRoot;
  }
}

function withRoot(info: FrameworkInfo, texts: ReadonlyMap<string, string>): Navigation {
  return readNavigation(info, (path) => texts.get(path) ?? null);
}

async function readConfigs(
  source: DocsSource,
  info: FrameworkInfo,
  files: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const path of navigationFiles(info)) {
    if (!files.has(path)) continue;
    const text = await source.read(path);
    if (text !== null) texts.set(path, text);
  }
  return texts;
}

async function parseAll(source: DocsSource, paths: readonly string[], info: FrameworkInfo) {
  const texts = await Promise.all(paths.map((path) => source.read(path)));
  const pages: PageToParse[] = [];
  paths.forEach((path, i) => {
    const text = texts[i];
    if (text != null && text.length <= MAX_PAGE_BYTES) pages.push({ path, text });
  });
  // Mintlify and Docusaurus (v3) read .md pages as MDX too.
  return parsePages(pages, info.framework === 'mintlify' || info.framework === 'docusaurus');
}
