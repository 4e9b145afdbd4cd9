// How the banner names the `docwright` command: by its name when a `docwright` is on PATH (after
// `npm link` or a global install), otherwise by the path of this checkout's bin/docwright, since a
// plain `docwright` would only answer "command not found" there.
import { accessSync, constants } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT_BIN = fileURLToPath(new URL('../../bin/docwright', import.meta.url));

export function cliCommand(pathVariable: string | undefined = process.env.PATH, cwd = process.cwd()): string {
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, 'docwright'), constants.X_OK);
      return 'docwright';
    } catch {
      // not in this directory
    }
  }
  const fromHere = relative(cwd, CHECKOUT_BIN);
  return fromHere.startsWith('..') ? CHECKOUT_BIN : `./${fromHere}`;
}
