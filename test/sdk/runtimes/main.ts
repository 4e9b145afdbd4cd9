// Entry point for Node, Deno and Bun: reads where the server is from the environment, runs the
// smoke pass with the client, and prints its result as JSON.
import * as sdk from '../../../src/sdk/index.ts';
import { smoke } from './smoke.ts';

declare const Deno: { env: { get(name: string): string | undefined } } | undefined;
const env = (name: string): string => {
  const value =
    typeof Deno !== 'undefined'
      ? Deno.env.get(name)
      : (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const result = await smoke(sdk, {
  baseUrl: env('SMOKE_URL'),
  apiKey: env('SMOKE_KEY'),
  projectId: env('SMOKE_PROJECT'),
  runtime: env('SMOKE_RUNTIME'),
});
console.log(JSON.stringify(result));
