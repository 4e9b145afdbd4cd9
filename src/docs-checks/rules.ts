// The checks, each a small rule with its code (problems.ts), run over a snapshot's facts: no file
// is read here, so running them again after a small change costs only the lookups.
import { posix } from 'node:path';
import { isPage, PAGE_EXTENSIONS, type PageFacts, type PageReference } from './page-facts.ts';
import type { DocsProblem } from './problems.ts';
import type { DocsSnapshot } from './snapshot.ts';

/** The rules about pages, for each of `pages` (the navigation's own are in navigationRules). */
export async function pageRules(snapshot: DocsSnapshot, pages: Iterable<string>): Promise<DocsProblem[]> {
  const problems: DocsProblem[] = [];
  const list = [...pages];
  await snapshot.load(list);
  for (const path of list) {
    // Known facts without an await: a full run asks for 10,000 pages and their links' targets.
    const facts = snapshot.knownFacts(path) ?? (await snapshot.pageFacts(path));
    if (!facts) continue;
    syntaxRule(path, facts, problems);
    frontmatterRule(snapshot, path, facts, problems);
    for (const reference of facts.references) await referenceRule(snapshot, path, reference, problems);
  }
  return problems;
}

function syntaxRule(path: string, facts: PageFacts, problems: DocsProblem[]): void {
  if (!facts.parseError) return;
  problems.push({
    code: 'markdown_syntax',
    file: path,
    line: facts.parseError.line,
    message: facts.parseError.message,
    hint: path.endsWith('.md')
      ? 'This site reads .md as MDX: close every tag, and escape a literal { or < as \\{ or &lt;.'
      : 'Close every JSX tag, and escape a literal { or < as \\{ or &lt;.',
    subject: facts.parseError.message,
  });
}

/** Front matter fields a framework refuses to build without, for pages under its content root. */
const REQUIRED_FIELDS: Partial<Record<string, string[]>> = { mintlify: ['title'], starlight: ['title'] };

function frontmatterRule(
  snapshot: DocsSnapshot,
  path: string,
  facts: PageFacts,
  problems: DocsProblem[],
): void {
  const frontmatter = facts.frontmatter;
  if (frontmatter?.error) {
    problems.push({
      code: 'frontmatter_yaml',
      file: path,
      line: frontmatter.line,
      message: frontmatter.error,
      hint: 'Fix the YAML between the --- lines (quote values that contain ": " or start with a special character).',
      subject: 'yaml',
    });
    return;
  }
  if (!path.startsWith(snapshot.contentRoot) || /(^|\/)(README|CHANGELOG|snippets\/)/.test(path)) return;
  for (const field of REQUIRED_FIELDS[snapshot.info.framework] ?? []) {
    const value = frontmatter?.fields?.[field];
    if (typeof value === 'string' && value.trim() !== '') continue;
    problems.push({
      code: 'frontmatter_field',
      file: path,
      line: frontmatter?.line ?? 1,
      message: `The front matter has no ${field} (${snapshot.info.framework} requires it).`,
      hint: `Add "${field}: ..." to the front matter between --- lines at the top of the page.`,
      subject: field,
    });
  }
}

const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/)/i;

async function referenceRule(
  snapshot: DocsSnapshot,
  from: string,
  reference: PageReference,
  problems: DocsProblem[],
): Promise<void> {
  const target = reference.target.trim();
  if (target === '' || EXTERNAL.test(target) || target.startsWith('{') || target.includes('${')) return;
  const hash = target.indexOf('#');
  const rawPath = (hash < 0 ? target : target.slice(0, hash)).split('?')[0]!;
  const anchor = hash < 0 ? '' : target.slice(hash + 1);
  const resolved = rawPath === '' ? from : resolvePath(snapshot, from, rawPath);
  if (resolved === null) {
    const isFile = reference.kind === 'image' || (/\.[a-z0-9]+$/i.test(rawPath) && !isPageLike(rawPath));
    problems.push({
      code: isFile ? 'file_missing' : 'link_broken',
      file: from,
      line: reference.line,
      message: `${isFile ? 'The referenced file' : 'The link target'} "${rawPath}" does not exist.`,
      hint: isFile
        ? 'Point it at a file that exists (list_files shows them) or add the file.'
        : 'Point the link at an existing page (relative to this page, or from the site root with a leading /).',
      subject: target,
    });
    return;
  }
  if (anchor === '' || !isPage(resolved)) return;
  const facts = snapshot.knownFacts(resolved) ?? (await snapshot.pageFacts(resolved));
  if (!facts) return;
  const wanted = decode(anchor);
  if (facts.anchors.includes(wanted) || facts.anchors.includes(wanted.toLowerCase())) return;
  problems.push({
    code: 'link_anchor',
    file: from,
    line: reference.line,
    message: `"${resolved}" has no heading or id for "#${anchor}".`,
    hint: `Use one of its anchors (${
      facts.anchors
        .slice(0, 5)
        .map((a) => `#${a}`)
        .join(', ') || 'it has none'
    }) or link the page without an anchor.`,
    subject: target,
  });
}

function isPageLike(path: string): boolean {
  return isPage(path) || path.endsWith('.html');
}

/**
 * resolvePath's answers per snapshot (whose files never change), by the linking page's folder
 * and the path as written: a full run asks the same of many pages, and of base and branch alike.
 */
const resolvedPaths = new WeakMap<DocsSnapshot, Map<string, string | null>>();

/** The repository path a link or file reference means, or null when nothing there exists. */
export function resolvePath(snapshot: DocsSnapshot, from: string, rawPath: string): string | null {
  let answers = resolvedPaths.get(snapshot);
  if (!answers) {
    answers = new Map();
    resolvedPaths.set(snapshot, answers);
  }
  const folder = rawPath.startsWith('/') ? '' : posix.dirname(from);
  const key = `${folder}\0${rawPath}`;
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = resolveUncached(snapshot, from, rawPath);
    answers.set(key, answer);
  }
  return answer;
}

function resolveUncached(snapshot: DocsSnapshot, from: string, rawPath: string): string | null {
  const path = decode(rawPath);
  const bases = path.startsWith('/') ? snapshot.info.absoluteRoots : [posix.dirname(from)];
  for (const base of bases) {
    const joined = posix.normalize(posix.join(base || '.', path));
    if (joined.startsWith('..')) continue;
    for (const candidate of candidates(joined === '.' ? '' : joined.replace(/\/$/, ''), path.endsWith('/'))) {
      if (snapshot.files.has(candidate)) return candidate;
    }
  }
  return null;
}

function candidates(path: string, isDirectory: boolean): string[] {
  const prefix = path === '' ? '' : `${path}/`;
  const index = ['index.md', 'index.mdx', 'README.md'].map((name) => `${prefix}${name}`);
  if (path === '') return index;
  const stem = path.replace(/\.html$/, '');
  const pages = PAGE_EXTENSIONS.map((ext) => `${stem}${ext}`);
  // Sites route /guide/intro/ to guide/intro.md as well as to guide/intro/index.md.
  if (isDirectory) return [...index, ...pages];
  return [path, ...pages, ...index];
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function navigationRules(snapshot: DocsSnapshot): DocsProblem[] {
  const problems: DocsProblem[] = [];
  const nav = snapshot.navigation;
  if (nav.configPath === null) return problems;
  for (const error of nav.errors) {
    problems.push({
      code: 'nav_config',
      file: nav.configPath,
      line: error.line,
      message: error.message,
      hint: error.hint ?? 'Fix the navigation config so the framework can read it.',
      subject: error.message,
    });
  }
  for (const entry of nav.entries) {
    if (entry.candidates.some((c) => snapshot.files.has(c))) continue;
    problems.push({
      code: 'nav_page_missing',
      file: nav.configPath,
      line: entry.line,
      message: `The navigation names "${entry.ref}", but ${entry.candidates[0]} does not exist.`,
      hint: "Create the page, or change the entry to the page's path (without extension on Mintlify).",
      subject: entry.ref,
    });
  }
  return problems;
}

/** Pages searched (parsed) at most per reachability question; past it a page counts as reachable. */
const REACH_BUDGET = 2000;

/**
 * A created page must be in the navigation, under an autogenerated directory, or linked from a
 * page that is reachable itself. Searched backwards from the page: only pages whose text
 * mentions its name are parsed, so the question costs little on a large site.
 */
export async function reachabilityRules(
  snapshot: DocsSnapshot,
  created: Iterable<string>,
): Promise<DocsProblem[]> {
  const problems: DocsProblem[] = [];
  const nav = snapshot.navigation;
  // A config that could not be read leaves the navigation unknown; a wrong colour does not.
  if (!nav.explicit || nav.errors.some((error) => !error.navigationRead)) return problems;
  const listed = new Set<string>();
  for (const entry of nav.entries) {
    const found = entry.candidates.find((c) => snapshot.files.has(c));
    if (found) listed.add(found);
  }
  const memo = new Map<string, boolean>();
  let budget = REACH_BUDGET;
  const reachable = async (path: string, visiting: Set<string>): Promise<boolean> => {
    const known = memo.get(path);
    if (known !== undefined) return known;
    if (listed.has(path) || nav.autogenerated.some((dir) => path.startsWith(dir))) return true;
    if (visiting.has(path)) return false;
    visiting.add(path);
    let found = false;
    for (const linker of await snapshot.pagesMentioning(nameOf(path))) {
      if (linker === path || visiting.has(linker)) continue;
      if (--budget < 0) return true;
      if ((await linksTo(snapshot, linker, path)) && (await reachable(linker, visiting))) {
        found = true;
        break;
      }
    }
    visiting.delete(path);
    memo.set(path, found);
    return found;
  };
  for (const path of created) {
    if (!isPage(path) || !snapshot.files.has(path) || !path.startsWith(snapshot.contentRoot)) continue;
    if (await reachable(path, new Set())) continue;
    problems.push({
      code: 'page_unreachable',
      file: path,
      line: null,
      message: `The new page ${path} is not in the navigation and no page in it links here.`,
      hint: `Add it to ${nav.configPath}, or link it from a page readers can reach.`,
      subject: path,
    });
  }
  return problems;
}

/** What a link to `path` must contain: its file name without extension, or its directory's for an index page. */
export function nameOf(path: string): string {
  const stem = posix.basename(path).replace(/\.(md|mdx|markdown)$/, '');
  if (stem !== 'index' && stem !== 'README') return stem;
  const dir = posix.basename(posix.dirname(path));
  return dir === '.' ? '' : dir;
}

async function linksTo(snapshot: DocsSnapshot, from: string, to: string): Promise<boolean> {
  for (const reference of (await snapshot.pageFacts(from))?.references ?? []) {
    if (reference.kind !== 'link' || EXTERNAL.test(reference.target)) continue;
    const raw = reference.target.split('#')[0]!.split('?')[0]!;
    if (raw !== '' && resolvePath(snapshot, from, raw) === to) return true;
  }
  return false;
}
