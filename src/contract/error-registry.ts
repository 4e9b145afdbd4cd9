// Every error code docwright answers with, from the tables in error-codes.ts. docs/errors.md
// lists the same codes; test/errors/registry.test.ts fails when the two disagree.
import { ERROR_CODES_BY_OWNER, type ErrorSpec } from './error-codes.ts';
import { JOB_FAILURE_CODES } from './job-failure-codes.ts';

export interface RegisteredError extends ErrorSpec {
  code: string;
  owner: string;
}

function collect(): Map<string, RegisteredError> {
  const registry = new Map<string, RegisteredError>();
  for (const [owner, specs] of Object.entries(ERROR_CODES_BY_OWNER)) {
    for (const [code, spec] of Object.entries<ErrorSpec>(specs)) {
      const existing = registry.get(code);
      if (existing) throw new Error(`Error code ${code} is defined by both ${existing.owner} and ${owner}`);
      registry.set(code, { code, owner, ...spec });
    }
  }
  return registry;
}

export const ERROR_REGISTRY: ReadonlyMap<string, RegisteredError> = collect();

/** Codes a failed job carries in error.code (see job-failure-codes.ts). */
export const JOB_FAILURE_REGISTRY: ReadonlyMap<string, string> = new Map(Object.entries(JOB_FAILURE_CODES));
