// The contract's plain lists (used where no schema is at hand: the client, the CLI, the
// dashboard, SQL callers) and its schemas spell the same values, and the docs list the same
// event types.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  AGENT_CATEGORIES,
  AgentReportSchema,
  JOB_EVENT_TYPES,
  JOB_STATUSES,
  JobEventSchema,
  JobStatusSchema,
  knownJobEventType,
} from '../../src/contract/index.ts';

const constsOf = (schema: { anyOf: readonly object[] }) =>
  schema.anyOf.flatMap((s) => ('const' in s ? [s.const] : []));

test('JOB_STATUSES and the job status schema list the same statuses', () => {
  assert.deepEqual(constsOf(JobStatusSchema), [...JOB_STATUSES]);
});

test("AGENT_CATEGORIES and the agents report's category schema list the same categories", () => {
  const category = AgentReportSchema.properties.agents.items.properties.category;
  assert.deepEqual(constsOf(category), [...AGENT_CATEGORIES]);
});

test('docs/job-events.md documents exactly the event types of the contract, in order', () => {
  const doc = readFileSync(new URL('../../docs/job-events.md', import.meta.url), 'utf8');
  const start = doc.indexOf('### Event types');
  assert.ok(start >= 0, 'docs/job-events.md has an "### Event types" section');
  const section = doc.slice(start, doc.indexOf('\n#', start + 1));
  const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(documented, [...JOB_EVENT_TYPES]);
  assert.match(
    (JobEventSchema.properties.type as { description?: string }).description ?? '',
    new RegExp(`^${JOB_EVENT_TYPES.join(', ')}, `),
  );
});

test('knownJobEventType narrows the listed types and refuses others', () => {
  for (const type of JOB_EVENT_TYPES) assert.equal(knownJobEventType(type), type);
  assert.equal(knownJobEventType('pull_requests'), null);
  assert.equal(knownJobEventType(''), null);
});
