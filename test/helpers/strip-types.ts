// TypeScript to JavaScript for the tests that look at, or serve, the client as a runtime loads it.
// node:module's stripTypeScriptTypes is experimental in Node 24 and prints an ExperimentalWarning
// in every test file that calls it. amaro is the library Node's own type stripping is built on
// (SWC compiled to WebAssembly, shipped in the npm package): the same output, without the warning.
import { transformSync } from 'amaro';

export function stripTypes(source: string): string {
  return transformSync(source, { mode: 'strip-only' }).code;
}
