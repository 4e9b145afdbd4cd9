// What the checks need to know of one page, taken from its syntax tree once: whether it parses,
// its front matter, the anchors it defines and the links and files it references. The rules work
// on these facts only, so a page that did not change is never parsed again (see snapshot.ts).
import GithubSlugger from 'github-slugger';
import remarkFrontmatter from 'remark-frontmatter';
import remarkMdx from 'remark-mdx';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { type Frontmatter, readFrontmatter } from './frontmatter.ts';

export interface PageReference {
  kind: 'link' | 'image';
  /** As written: ./setup.md#install, /img/logo.png, #usage. */
  target: string;
  line: number;
}

export interface PageFacts {
  parseError: { line: number; message: string } | null;
  frontmatter: Frontmatter | null;
  /** Heading slugs and explicit ids (`{#id}`, id="..."), in page order. */
  anchors: string[];
  references: PageReference[];
}

/** Pages are Markdown or MDX; .mdx (and .md on a Mintlify site, which reads both as MDX) parse as MDX. */
export const PAGE_EXTENSIONS = ['.md', '.mdx', '.markdown'] as const;

export function isPage(path: string): boolean {
  return PAGE_EXTENSIONS.some((ext) => path.endsWith(ext));
}

const MAX_NESTING = 32;
const TOO_DEEP = new RegExp(`^(?:[ \\t]*(?:[-*+>]|\\d{1,9}[.)])[ \\t]+){${MAX_NESTING + 1}}`, 'm');

const markdown = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']);
const mdx = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkMdx);

// A loose tree node: unified's own types would make every visit a cast anyway.
interface Node {
  type: string;
  value?: string;
  url?: string;
  depth?: number;
  name?: string | null;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: Node[];
  position?: { start: { line: number } };
}

/** Whether the page at `path` is read as MDX, on a site that reads .md as MDX (`mdx`) or not. */
export function parsesAsMdx(path: string, mdx: boolean): boolean {
  return mdx || path.endsWith('.mdx');
}

export function pageFacts(path: string, text: string, options: { mdx: boolean }): PageFacts {
  const asMdx = parsesAsMdx(path, options.mdx);
  // The parser's time grows with the square of the nesting: a page nested this deep is refused
  // rather than allowed to hold the check up for seconds.
  if (TOO_DEEP.test(text)) {
    return {
      parseError: {
        line: 1,
        message: `The page nests lists or quotes more than ${MAX_NESTING} levels deep.`,
      },
      frontmatter: null,
      anchors: [],
      references: [],
    };
  }
  let tree: Node;
  let parseError: PageFacts['parseError'] = null;
  try {
    tree = (asMdx ? mdx : markdown).parse(asMdx ? escapeHeadingIds(text) : text) as Node;
  } catch (error) {
    const place = error as { line?: number; reason?: string; message?: string };
    parseError = { line: place.line ?? 1, message: place.reason ?? place.message ?? String(error) };
    // The links and anchors are still wanted (other pages link here): read it as plain Markdown.
    tree = markdown.parse(text) as Node;
  }
  const facts: PageFacts = { parseError, frontmatter: null, anchors: [], references: [] };
  const slugger = new GithubSlugger();
  visit(tree, (node) => collect(node, facts, slugger));
  return facts;
}

/**
 * Docusaurus and VitePress take `## Title {#id}` as the heading's id before MDX reads the page;
 * escaped, the braces stay text for MDX and the id is read from the heading's text.
 */
function escapeHeadingIds(text: string): string {
  return text.includes('{#') ? text.replace(/^(#{1,6} .*?)\{#([^}\s]+)\}[ \t]*$/gm, '$1\\{#$2\\}') : text;
}

function visit(node: Node, enter: (node: Node) => void): void {
  enter(node);
  for (const child of node.children ?? []) visit(child, enter);
}

const ID_ATTRIBUTE = /\b(?:id|name)\s*=\s*["']([^"']+)["']/g;
const HTML_REFERENCE = /\b(href|src)\s*=\s*["']([^"']+)["']/g;
const EXPLICIT_ID = /\s*\{#([^}\s]+)\}\s*$/;

function collect(node: Node, facts: PageFacts, slugger: GithubSlugger): void {
  const line = node.position?.start.line ?? 1;
  switch (node.type) {
    case 'yaml':
      facts.frontmatter = readFrontmatter(node.value ?? '', line);
      return;
    case 'heading': {
      const text = plainText(node);
      const explicit = EXPLICIT_ID.exec(text);
      facts.anchors.push(explicit ? explicit[1]! : slugger.slug(text));
      return;
    }
    case 'link':
    case 'definition':
      if (node.url) facts.references.push({ kind: 'link', target: node.url, line });
      return;
    case 'image':
      if (node.url) facts.references.push({ kind: 'image', target: node.url, line });
      return;
    case 'html':
      for (const match of (node.value ?? '').matchAll(ID_ATTRIBUTE)) facts.anchors.push(match[1]!);
      for (const match of (node.value ?? '').matchAll(HTML_REFERENCE)) {
        facts.references.push({ kind: match[1] === 'src' ? 'image' : 'link', target: match[2]!, line });
      }
      return;
    case 'mdxJsxFlowElement':
    case 'mdxJsxTextElement':
      for (const attribute of node.attributes ?? []) {
        // Only literal values: an expression ({url}) is only known when the site builds.
        if (attribute.type !== 'mdxJsxAttribute' || typeof attribute.value !== 'string') continue;
        if (attribute.name === 'id') facts.anchors.push(attribute.value);
        else if (attribute.name === 'href')
          facts.references.push({ kind: 'link', target: attribute.value, line });
        else if (attribute.name === 'src')
          facts.references.push({ kind: 'image', target: attribute.value, line });
      }
      return;
  }
}

function plainText(node: Node): string {
  if (typeof node.value === 'string' && node.type !== 'html') return node.value;
  return (node.children ?? []).map(plainText).join('');
}
