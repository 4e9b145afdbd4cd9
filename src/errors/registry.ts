// Every error code docwright answers with, gathered from the modules that own them. docs/errors.md
// lists the same codes; test/errors/registry.test.ts fails when the two disagree.

import { metricsErrors } from '../metrics/errors.ts';
import { accountErrors } from '../modules/accounts/errors.ts';
import { collectErrors } from '../modules/analytics/collect/errors.ts';
import { analyticsErrors } from '../modules/analytics/errors.ts';
import { importErrors } from '../modules/analytics/import/errors.ts';
import { ingestErrors } from '../modules/analytics/ingest/errors.ts';
import { jobDiffErrors } from '../modules/jobs/diff/errors.ts';
import { jobErrors } from '../modules/jobs/errors.ts';
import { JOB_FAILURE_CODES } from '../modules/jobs/failure-codes.ts';
import { keyErrors } from '../modules/keys/errors.ts';
import { projectErrors } from '../modules/projects/errors.ts';
import type { ErrorFactory, ErrorSpec } from './app-error.ts';
import { httpErrors } from './request-errors.ts';

const OWNERS: Record<string, Record<string, ErrorFactory>> = {
  http: httpErrors,
  projects: projectErrors,
  keys: keyErrors,
  jobs: jobErrors,
  jobDiffs: jobDiffErrors,
  analytics: analyticsErrors,
  ingest: ingestErrors,
  import: importErrors,
  accounts: accountErrors,
  collect: collectErrors,
  metrics: metricsErrors,
};

export interface RegisteredError extends ErrorSpec {
  code: string;
  owner: string;
}

function collect(): Map<string, RegisteredError> {
  const registry = new Map<string, RegisteredError>();
  for (const [owner, errors] of Object.entries(OWNERS)) {
    for (const factory of Object.values(errors)) {
      const existing = registry.get(factory.code);
      if (existing)
        throw new Error(`Error code ${factory.code} is defined by both ${existing.owner} and ${owner}`);
      registry.set(factory.code, { code: factory.code, owner, ...factory.spec });
    }
  }
  return registry;
}

export const ERROR_REGISTRY: ReadonlyMap<string, RegisteredError> = collect();

/** Codes a failed job carries in error.code (see src/modules/jobs/failure-codes.ts). */
export const JOB_FAILURE_REGISTRY: ReadonlyMap<string, string> = new Map(Object.entries(JOB_FAILURE_CODES));
