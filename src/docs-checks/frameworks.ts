// Which docs framework a repository uses, told from its files alone (no code is run): the
// framework decides where pages live, how absolute links resolve, which front matter fields are
// required and where the navigation is configured.
import { posix } from 'node:path';

export const DOCS_FRAMEWORKS = [
  'mintlify',
  'docusaurus',
  'mkdocs',
  'vitepress',
  'starlight',
  'markdown',
] as const;
export type DocsFramework = (typeof DOCS_FRAMEWORKS)[number];

export interface FrameworkInfo {
  framework: DocsFramework;
  /** The file that told the framework (docs.json, mkdocs.yml...); null for plain Markdown. */
  configPath: string | null;
  /** Where the pages live, repository-relative ('' for the root). */
  contentRoot: string;
  /** Directories that absolute links (/guide/intro, /img/logo.png) are resolved against. */
  absoluteRoots: string[];
}

const first = (files: ReadonlySet<string>, candidates: readonly string[]) =>
  candidates.find((c) => files.has(c)) ?? null;

/**
 * The framework of the repository whose files are `files`, searched at the root and one level
 * down (docs/ or website/ hold the site in many repositories). Ties go in the order below: a
 * Mintlify config is the most specific sign, plain Markdown the fallback.
 */
export function detectFramework(files: ReadonlySet<string>): FrameworkInfo {
  for (const dir of ['', 'docs/', 'website/', 'site/']) {
    const found = detectIn(files, dir);
    if (found) return found;
  }
  return { framework: 'markdown', configPath: null, contentRoot: '', absoluteRoots: [''] };
}

/** The framework named by a project setting, laid out as its config file (if any) says. */
export function forcedFramework(files: ReadonlySet<string>, framework: DocsFramework): FrameworkInfo {
  const detected = detectFramework(files);
  if (detected.framework === framework) return detected;
  if (framework === 'markdown') return { framework, configPath: null, contentRoot: '', absoluteRoots: [''] };
  return { ...defaults(framework, ''), configPath: null };
}

function detectIn(files: ReadonlySet<string>, dir: string): FrameworkInfo | null {
  const at = (names: readonly string[]) =>
    first(
      files,
      names.map((n) => `${dir}${n}`),
    );
  const mintlify = at(['docs.json', 'mint.json']);
  if (mintlify) return { ...defaults('mintlify', dir), configPath: mintlify };
  const docusaurus = at([
    'docusaurus.config.ts',
    'docusaurus.config.js',
    'docusaurus.config.mjs',
    'docusaurus.config.cjs',
  ]);
  if (docusaurus) return { ...defaults('docusaurus', dir), configPath: docusaurus };
  const mkdocs = at(['mkdocs.yml', 'mkdocs.yaml']);
  if (mkdocs) return { ...defaults('mkdocs', dir), configPath: mkdocs };
  const vitepress = findVitepress(files, dir);
  if (vitepress) {
    const srcDir = posix.dirname(posix.dirname(vitepress));
    const root = srcDir === '.' ? '' : `${srcDir}/`;
    return {
      framework: 'vitepress',
      configPath: vitepress,
      contentRoot: root,
      absoluteRoots: [root, `${root}public/`],
    };
  }
  const astro = at(['astro.config.mjs', 'astro.config.ts', 'astro.config.js', 'astro.config.mts']);
  if (astro && [...files].some((f) => f.startsWith(`${dir}src/content/docs/`))) {
    return { ...defaults('starlight', dir), configPath: astro };
  }
  return null;
}

function findVitepress(files: ReadonlySet<string>, dir: string): string | null {
  for (const base of [dir, `${dir}docs/`]) {
    const found = first(
      files,
      ['config.ts', 'config.mts', 'config.js', 'config.mjs'].map((n) => `${base}.vitepress/${n}`),
    );
    if (found) return found;
  }
  return null;
}

function defaults(framework: DocsFramework, dir: string): Omit<FrameworkInfo, 'configPath'> {
  switch (framework) {
    case 'mintlify':
      return { framework, contentRoot: dir, absoluteRoots: [dir] };
    case 'docusaurus':
      return { framework, contentRoot: `${dir}docs/`, absoluteRoots: [`${dir}docs/`, `${dir}static/`, dir] };
    case 'mkdocs':
      return { framework, contentRoot: `${dir}docs/`, absoluteRoots: [`${dir}docs/`] };
    case 'vitepress':
      return { framework, contentRoot: dir, absoluteRoots: [dir, `${dir}public/`] };
    case 'starlight':
      return {
        framework,
        contentRoot: `${dir}src/content/docs/`,
        absoluteRoots: [`${dir}src/content/docs/`, `${dir}public/`, `${dir}src/`],
      };
    case 'markdown':
      return { framework, contentRoot: dir, absoluteRoots: [dir] };
  }
}
