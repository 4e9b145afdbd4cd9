// A page's front matter (the YAML between its leading --- lines), read into its fields or the
// first YAML error. Most front matter is a few `key: Plain text` lines: those are read by a
// pattern, because the yaml library costs about a tenth of a full run's parse (9-11 % of the
// parse workers' samples on the bench's 10,000 pages). The pattern takes only lines YAML can
// read as nothing but that very string; anything else (quotes, numbers, lists, comments, a
// `true`, a repeated key) goes to the yaml library, so the fields are the same either way
// (test/docs-checks/frontmatter.test.ts checks both on generated text).
import YAML from 'yaml';

export interface Frontmatter {
  line: number;
  error: string | null;
  /** The top-level fields, when the YAML is a mapping. */
  fields: Record<string, unknown> | null;
}

/**
 * `key: value` where the key and value start with a letter and hold only letters, digits and
 * ` _.,()/'-` (no `:` or `#`, which YAML reads as structure or a comment), with no space at the
 * end (YAML would drop it).
 */
const SIMPLE_LINE = /^([A-Za-z][A-Za-z0-9_-]*): +([A-Za-z](?:[A-Za-z0-9 _.,()/'-]*[A-Za-z0-9_.,()/'-])?)$/;
/** Plain words YAML 1.2's core schema reads as booleans or null, not strings. */
const NOT_A_STRING = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

/** The front matter `source` (without its --- lines) that starts at `line`. */
export function readFrontmatter(source: string, line: number): Frontmatter {
  return simpleFrontmatter(source, line) ?? yamlFrontmatter(source, line);
}

/** The fields of front matter made only of simple `key: Plain text` lines; null for any other. */
export function simpleFrontmatter(source: string, line: number): Frontmatter | null {
  if (source === '') return null;
  const fields: Record<string, unknown> = {};
  for (const text of source.split('\n')) {
    const match = SIMPLE_LINE.exec(text);
    if (!match) return null;
    const [, key, value] = match as unknown as [string, string, string];
    if (NOT_A_STRING.test(key) || NOT_A_STRING.test(value) || Object.hasOwn(fields, key)) return null;
    fields[key] = value;
  }
  return { line, error: null, fields };
}

/** The front matter as the yaml library reads it. */
export function yamlFrontmatter(source: string, line: number): Frontmatter {
  const document = YAML.parseDocument(source, { prettyErrors: false });
  const error = document.errors[0];
  if (error) {
    const at = error.linePos?.[0]?.line ?? 1;
    return { line: line + at, error: firstLine(error.message), fields: null };
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (failure) {
    // Parsed, but not to values: an alias to no anchor (`title: *a`), too many aliases.
    return { line: line + 1, error: firstLine((failure as Error).message), fields: null };
  }
  const fields =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  return {
    line,
    error: value === null || fields !== null ? null : 'The front matter is not a mapping of fields.',
    fields: fields ?? {},
  };
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}
