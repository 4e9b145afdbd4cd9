// Writes the variable tables of docs/configuration.md from the declarations the configuration is
// read through (src/config/variables.ts, and the client commands' CLIENT_VARIABLES), so the page
// cannot drift from what the server accepts. Only the marked regions are written; the prose
// around them is the page's own.
//
//   node scripts/generate-config-docs.ts           rewrite the tables in docs/configuration.md
//   node scripts/generate-config-docs.ts --check   exit 1 when they are stale (what the test does)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TSchema } from 'typebox';
import { defaultText, descriptionOf, valueForm } from '../src/config/describe-variables.ts';
import { CONFIG_VARIABLES, type VariableFacts } from '../src/config/variables.ts';
import { CLIENT_VARIABLES } from '../src/main/cli/client-options.ts';

export const CONFIG_DOC_PATH = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

/** A table cell: no pipe may end it early, no <token> may vanish as an HTML tag. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function serverRow(name: string, schema: TSchema): string {
  const { secret, docsNote } = schema as TSchema & VariableFacts;
  const form = `${valueForm(schema) || 'text'}${secret ? ', secret' : ''}`;
  const fallback = defaultText(schema);
  const shownDefault = fallback === null ? '' : 'default' in schema ? `\`${fallback}\`` : cell(fallback);
  const meaning = `${cell(descriptionOf(schema))}.${docsNote ? ` ${docsNote}` : ''}`;
  return `| \`${name}\` | ${cell(form)} | ${shownDefault} | ${meaning} |`;
}

export function serverVariablesTable(): string[] {
  return [
    '| variable | value | default | meaning |',
    '| --- | --- | --- | --- |',
    ...Object.entries(CONFIG_VARIABLES).map(([name, schema]) => serverRow(name, schema)),
  ];
}

export function clientVariablesTable(): string[] {
  return [
    '| variable | meaning |',
    '| --- | --- |',
    ...Object.entries(CLIENT_VARIABLES).map(([name, text]) => `| \`${name}\` | ${cell(text)} |`),
  ];
}

const REGIONS: Record<string, () => string[]> = {
  'server-variables': serverVariablesTable,
  'client-variables': clientVariablesTable,
};

/** The page with each generated region rewritten; everything outside the markers is kept. */
export function renderConfigurationDoc(page: string): string {
  let result = page;
  for (const [region, render] of Object.entries(REGIONS)) {
    const begin = `<!-- generated:${region} by scripts/generate-config-docs.ts: do not edit by hand -->`;
    const end = `<!-- end generated:${region} -->`;
    const from = result.indexOf(begin);
    const to = result.indexOf(end);
    if (from === -1 || to < from) throw new Error(`docs/configuration.md lacks the markers of ${region}`);
    result = `${result.slice(0, from + begin.length)}\n\n${render().join('\n')}\n\n${result.slice(to)}`;
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const current = readFileSync(CONFIG_DOC_PATH, 'utf8');
  const text = renderConfigurationDoc(current);
  if (process.argv.includes('--check')) {
    if (current !== text) {
      process.stderr.write('docs/configuration.md is stale: run node scripts/generate-config-docs.ts\n');
      process.exit(1);
    }
  } else {
    writeFileSync(CONFIG_DOC_PATH, text);
    process.stdout.write(`wrote ${CONFIG_DOC_PATH}\n`);
  }
}
