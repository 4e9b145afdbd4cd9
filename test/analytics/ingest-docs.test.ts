// docs/ingestion.md and the code must name the same record rejection codes and limits.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { IngestRecordSchema, MAX_BODY_BYTES, MAX_FUTURE_MS, MAX_RECORDS } from '../../src/contract/index.ts';
import { DEFAULT_GROUP_COMMIT } from '../../src/modules/analytics/ingest/group-commit.ts';
import { RECORD_REJECTIONS } from '../../src/modules/analytics/ingest/record-validation.ts';

const doc = readFileSync(new URL('../../docs/ingestion.md', import.meta.url), 'utf8');
const section = (heading: string) => {
  const start = doc.indexOf(heading);
  assert.ok(start >= 0, `docs/ingestion.md has "${heading}"`);
  const end = doc.indexOf('\n#', start + heading.length);
  return doc.slice(start, end === -1 ? undefined : end);
};
const codesIn = (text: string) => [...text.matchAll(/^\| `([A-Za-z_]+)` *\|/gm)].map((m) => m[1]!);

test('the rejection codes in the docs are the ones the code gives', () => {
  assert.deepEqual(codesIn(section('### Rejection codes')).sort(), Object.keys(RECORD_REJECTIONS).sort());
});

test('the record table lists every field of the record schema', () => {
  assert.deepEqual(
    codesIn(section('### The record')).sort(),
    Object.keys(IngestRecordSchema.properties).sort(),
  );
});

test('the documented limits are the enforced ones', () => {
  assert.equal(MAX_RECORDS, 1000);
  assert.match(doc, /at most \*\*1,000 records\*\*/);
  assert.equal(MAX_BODY_BYTES, 1024 * 1024);
  assert.match(doc, /\*\*1 MiB\*\*/);
  assert.equal(MAX_FUTURE_MS, 5 * 60_000);
  assert.match(doc, /\*\*5 minutes ahead\*\*/);
  assert.equal(DEFAULT_GROUP_COMMIT.maxPendingViews, 200_000);
  assert.match(doc, /more than \*\*200,000\*\* views wait/);
  assert.equal(DEFAULT_GROUP_COMMIT.windowMs, 5);
  assert.equal(DEFAULT_GROUP_COMMIT.maxGroupViews, 20_000);
  assert.match(doc, /waits up to 5 ms for others \(or until 20,000 views wait\)/);
});
