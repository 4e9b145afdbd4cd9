// End to end (GitHub, Prism-checked): a model provider that accepts the call and then sends
// nothing no longer holds a worker slot until the run's wall-time bound (15 minutes by default,
// left as it is here). Each call is cut after the model timeout (short here) and tried again; a
// job whose model never answers fails with model_error and its slot is free for the next job.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachBackend } from '../helpers/databases.ts';
import { reply } from '../stand-ins/scripted-llm-server.ts';
import { type AgentHarness, startAgentHarness } from './agent-harness.ts';
import { eventually, scriptDocsEdit } from './scripts.ts';

await forEachBackend('a model that keeps its calls waiting, end to end (GitHub)', ({ db }) => {
  let h: AgentHarness;
  before(async () => {
    // The harness retries a model call twice (three attempts in all).
    h = await startAgentHarness(db(), { modelTimeoutMs: 2000, worker: { concurrency: 1 } });
  });
  after(() => h.close());

  test('a hung call mid-run is cut and tried again; the job completes', { timeout: 60_000 }, async () => {
    const first = h.llm.requests.length;
    h.llm.enqueue(reply.toolCall('list_files', { pattern: 'docs/**' }), reply.hang());
    scriptDocsEdit(h.llm);
    // scriptDocsEdit's first step repeats the listing; the retry of the hung call answers it.
    const created = await h.createJob('Document the --yes flag despite a stalling model');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.match((await h.fileOnBranch(job.branch!, 'docs/guide.md')) ?? '', /--yes` to accept/);
    const hung = await h.llm.waitForAbort(first + 1);
    assert.notEqual(hung.abortedAt, null, 'the hung call was closed');
    const retries = (await h.events(created.id)).filter((e) => e.type === 'model_retry');
    assert.equal(retries.length, 1);
    assert.equal(retries[0]!.data.attempt, 1);
    assert.match(String(retries[0]!.data.message), /no answer came within 2 s/);
  });

  test('a model that never answers: model_error after the retries, and the slot is free again', {
    timeout: 60_000,
  }, async () => {
    const first = h.llm.requests.length;
    h.llm.enqueue(reply.hang(), reply.hang(), reply.hang());
    const created = await h.createJob('Wait for a model that never answers');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'model_error');
    assert.equal(job.error?.message, 'openai:gpt-e2e failed: no answer came within 2 s (after 3 attempts)');
    assert.equal(h.llm.requests.length - first, 3);
    for (let i = 0; i < 3; i++) await h.llm.waitForAbort(first + i);
    await eventually('the worker to let go', () => !h.worker.activeJobIds.includes(created.id));

    // The one slot this worker has takes the next job.
    scriptDocsEdit(h.llm, 'Document the --yes flag after all');
    const next = await h.waitForJob((await h.createJob('The next job gets the slot')).id);
    assert.equal(next.status, 'completed', JSON.stringify(next.error));
  });
});
