// The prompt a code_change run gives its job: {{event.changedFiles}} and {{event.diff}} filled,
// the diff allowed up to its own cap (longer than other values), the code tools named when the
// run has a code source, and a prompt over the jobs' limit made to fit by cutting the diff again
// between files (the note keeping the files the first cut left out).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PROMPT_LENGTH } from '../../src/contract/index.ts';
import { runPrompt } from '../../src/modules/automations/prompt.ts';
import type { AutomationRow, RunRow } from '../../src/modules/automations/queries.ts';
import { capDiff } from '../../src/util/diff-cap.ts';

const file = (name: string, size: number) =>
  `diff --git a/${name} b/${name}\n--- a/${name}\n+++ b/${name}\n@@ -0,0 +1 @@\n+${'z'.repeat(size)}\n`;

function automation(promptTemplate: string): AutomationRow {
  return {
    id: 'aut_1',
    project_id: 'prj_1',
    name: 'Docs follow the engine',
    enabled: true,
    trigger: { type: 'code_change', host: 'github', repository: 'acme/engine' },
    prompt_template: promptTemplate,
    limits: { maxOpenPullRequests: 3, dailyRunCap: 50, grouping: false, quietPeriodSeconds: 0 },
    trigger_secret_hash: null,
    next_run_at: null,
    created_at: new Date(),
    updated_at: new Date(),
  };
}

function run(event: Record<string, unknown>): RunRow {
  return {
    id: 'run_1',
    automation_id: 'aut_1',
    project_id: 'prj_1',
    trigger_type: 'code_change',
    status: 'queued',
    context: { events: [event] },
    job_id: null,
    followed_up: false,
    skip_reason: null,
    due_at: new Date(),
    lease_expires_at: null,
    attempts: 1,
    created_at: new Date(),
    started_at: null,
  };
}

const EVENT = {
  host: 'github',
  kind: 'merged_pull_request',
  repository: 'acme/engine',
  number: 7,
  title: 'Add --yes',
  url: 'https://github.com/acme/engine/pull/7',
  mergedCommit: 'a'.repeat(40),
  changedFiles: ['src/installer.ts'],
};
const SOURCE = {
  host: 'github',
  repository: 'acme/engine',
  repositoryUrl: 'https://github.com/acme/engine.git',
  commit: 'a'.repeat(40),
};

test('changed files, a diff longer than other values may be, and the code tools named', () => {
  const diff = capDiff(Array.from({ length: 30 }, (_, i) => file(`f${i}.ts`, 1_900)).join(''));
  assert.ok(diff.length > 30_000);
  const prompt = runPrompt(
    automation('Files: {{event.changedFiles}}\n{{event.diff}}'),
    run({ ...EVENT, diff }),
    SOURCE,
  );
  assert.match(
    prompt,
    /^Automation "Docs follow the engine" follows these code changes:\n- acme\/engine #7: Add --yes/,
  );
  assert.match(prompt, /can be read \(not changed\) with the code_list, code_read and code_search tools/);
  assert.match(prompt, /Files: \["src\/installer\.ts"\]/);
  assert.ok(prompt.includes(diff), 'the whole capped diff, not cut at 20,000 characters');
  const without = runPrompt(automation('{{event.title}}'), run(EVENT));
  assert.doesNotMatch(without, /code_read/);
});

test('a prompt over the limit gets a shorter diff, still between files', () => {
  const diff = capDiff(Array.from({ length: 40 }, (_, i) => file(`f${i}.ts`, 1_900)).join(''));
  assert.match(diff, /file\(s\) left out: f2\d\.ts/);
  const body = 'b'.repeat(19_000);
  const prompt = runPrompt(automation('{{event.body}}\n{{event.diff}}'), run({ ...EVENT, body, diff }));
  assert.ok([...prompt].length <= MAX_PROMPT_LENGTH, `${[...prompt].length} characters`);
  assert.match(prompt, /diff --git a\/f0\.ts/);
  const note = /\[diff cut at \d+ characters: (\d+) file\(s\) left out: ([^\]]*)\]/.exec(prompt)!;
  assert.ok(Number(note[1]) > 40 - 20, 'more files left out than before');
  assert.match(note[2]!, /f39\.ts/, 'the files the first cut left out are still named');
  assert.doesNotMatch(prompt, /\+z+\n(?!diff --git|\[diff cut)/, 'no file is cut inside');
});
