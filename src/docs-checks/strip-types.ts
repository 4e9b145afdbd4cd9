// TypeScript blanked to JavaScript (types become spaces, so every line and column stays where it
// was), for reading a sidebars.ts without running it.
//
// node:module's stripTypeScriptTypes (Node 22.13+) is the engine Node runs docwright's own .ts
// files with (amaro: SWC in WebAssembly), already loaded by then: the first call costs ~5 ms. The
// amaro package gives the same output, but loading it and compiling its WebAssembly again takes
// 236-649 ms once per process, holding the event loop. Node's function however drops the line of
// a syntax error (ERR_INVALID_TYPESCRIPT_SYNTAX has the message only), and a sidebars.ts that
// does not parse is reported at its line: so a module Node refuses is stripped again by amaro,
// whose error has it (`startLine`). Only a broken sidebar, or a Node without the function, loads
// amaro.
import * as nodeModule from 'node:module';

let amaro: typeof import('amaro') | null = null;

/** The module with its types blanked; throws a syntax error with `startLine` when it does not parse. */
export function stripTypes(source: string): string {
  if (typeof nodeModule.stripTypeScriptTypes === 'function') {
    try {
      return withoutStripWarning(() => nodeModule.stripTypeScriptTypes(source, { mode: 'strip' }));
    } catch {
      // Stripped again below, for the error's line.
    }
  }
  amaro ??= nodeModule.createRequire(import.meta.url)('amaro') as typeof import('amaro');
  return amaro.transformSync(source, { mode: 'strip-only' }).code;
}

/**
 * Node 24 marks stripTypeScriptTypes experimental and prints an ExperimentalWarning on its first
 * call into the server's log; the call is synchronous, so that one warning is held back during
 * it, and any other warning still goes through.
 */
function withoutStripWarning<T>(call: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (message.includes('stripTypeScriptTypes')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return call();
  } finally {
    process.emitWarning = emitWarning;
  }
}
