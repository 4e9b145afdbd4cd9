// The browser script as served: read once, its comment lines and indentation taken out (the file
// in the repository stays readable), with an ETag so a revalidation costs a 304.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SCRIPT_PATH = fileURLToPath(new URL('./script.js', import.meta.url));

export interface ScriptAsset {
  body: string;
  etag: string;
}

/** Safe for script.js as written: no line starts inside a string or a template literal. */
export function compactScript(source: string): string {
  const code = source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');
  return `/* docwright page-view script: see docs/browser-script.md */\n${code}\n`;
}

let cached: ScriptAsset | null = null;

export function scriptAsset(): ScriptAsset {
  if (cached === null) {
    const body = compactScript(readFileSync(SCRIPT_PATH, 'utf8'));
    cached = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
  }
  return cached;
}
