// Mintlify's docs.json / mint.json against the shape its documentation gives, written here rather
// than taken from @mintlify/validation (Mintlify's own schema): that package is under the Elastic
// License 2.0, not an open-source license, and installs 260 packages (122 MB: React, Shiki,
// KaTeX, a second TypeScript) for a zod schema (docs/docs-checks.md, Decisions).
//
// Documented for docs.json: `name`, `theme`, `colors.primary` and `navigation` are required, and
// every colour is a hex code beginning with `#`. The theme names are not checked: Mintlify adds
// themes, and a list kept here would call a new one an error. mint.json (the older format) needs
// `name` and `navigation`, a list of groups.

export interface ConfigError {
  line: number | null;
  message: string;
  /** One line saying how to fix it; absent: the generic one. */
  hint?: string;
  /** The navigation was still read: its pages can be checked and counted reachable. */
  navigationRead?: boolean;
}

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

export function mintlifyShapeErrors(
  fields: Record<string, unknown>,
  text: string,
  file: string,
  isDocsJson: boolean,
): ConfigError[] {
  const errors: ConfigError[] = [];
  const required = isDocsJson
    ? 'Mintlify requires name, theme, colors.primary and navigation'
    : 'mint.json requires name and navigation';
  const missing = (path: string, example: string) =>
    errors.push({
      line: 1,
      message: `${file} lacks the required field "${path}".`,
      hint: `Add ${example} to ${file} (${required}).`,
      navigationRead: path !== 'navigation',
    });
  const wrongType = (path: string, type: string) =>
    errors.push({
      line: lineOfKey(text, path.split('.')),
      message: `"${path}" in ${file} must be ${type}.`,
      hint: `Make "${path}" ${type}.`,
      navigationRead: path !== 'navigation',
    });

  if (fields.name === undefined) missing('name', '"name": "Your product"');
  else if (typeof fields.name !== 'string') wrongType('name', 'a string');
  if (isDocsJson) {
    if (fields.theme === undefined) missing('theme', '"theme": "mint"');
    else if (typeof fields.theme !== 'string') wrongType('theme', 'a string');
  }
  const colors = fields.colors;
  if (colors === undefined) {
    if (isDocsJson) missing('colors.primary', '"colors": { "primary": "#0D9373" }');
  } else if (colors === null || typeof colors !== 'object' || Array.isArray(colors)) {
    wrongType('colors', 'an object');
  } else {
    const set = colors as Record<string, unknown>;
    if (set.primary === undefined && isDocsJson)
      missing('colors.primary', '"primary": "#0D9373" to "colors"');
    for (const key of ['primary', 'light', 'dark']) {
      const value = set[key];
      if (value === undefined || (typeof value === 'string' && HEX.test(value))) continue;
      errors.push({
        line: lineOfKey(text, ['colors', key]),
        message: `"colors.${key}" in ${file} is not a hex color: ${JSON.stringify(value)}.`,
        hint: `Write "colors.${key}" as a hex code beginning with #, such as "#0D9373".`,
        navigationRead: true,
      });
    }
  }
  const navigation = fields.navigation;
  if (navigation === undefined)
    missing('navigation', isDocsJson ? '"navigation": { "pages": [...] }' : '"navigation": [...]');
  else if (isDocsJson && (navigation === null || typeof navigation !== 'object' || Array.isArray(navigation)))
    wrongType('navigation', 'an object (groups, tabs, anchors or pages)');
  else if (!isDocsJson && !Array.isArray(navigation)) wrongType('navigation', 'a list of groups');
  return errors;
}

/** The line of `"a"`, then of `"b"` after it...: where a nested key is written (1 when not found). */
function lineOfKey(text: string, keys: string[]): number {
  let at = 0;
  for (const key of keys) {
    const found = text.indexOf(`"${key}"`, at);
    if (found < 0) return 1;
    at = found;
  }
  return text.slice(0, at).split('\n').length;
}
