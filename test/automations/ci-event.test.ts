// Reading the code hosts' CI webhooks for the commit they name (src/modules/automations/hosts/
// ci-event.ts): GitHub check_run, check_suite and status, GitLab's Pipeline Hook, Gitea's status.
// Only a finished state asks for a poll; other events are not CI events (null) and go on to the
// automations. The full signed deliveries are tested end to end in test/e2e/agent-ci-webhooks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readHostCiEvent } from '../../src/modules/automations/hosts/ci-event.ts';
import { giteaStatusPayload, gitlabPipelinePayload } from '../stand-ins/code-host-webhooks.ts';

const SHA = 'ABCDEF0123456789abcdef0123456789abcdef01';
const sha = SHA.toLowerCase();
const gh = (event: string) => ({ 'x-github-event': event });

test('GitHub: check_run and check_suite when completed, status when final', () => {
  assert.deepEqual(
    readHostCiEvent('github', gh('check_run'), { action: 'completed', check_run: { head_sha: SHA } }),
    {
      sha,
      ignored: null,
    },
  );
  const created = readHostCiEvent('github', gh('check_run'), {
    action: 'created',
    check_run: { head_sha: SHA },
  });
  assert.equal(created?.sha, SHA);
  assert.match(String(created?.ignored), /not finished \(created\)/);
  assert.deepEqual(
    readHostCiEvent('github', gh('check_suite'), { action: 'completed', check_suite: { head_sha: SHA } }),
    { sha, ignored: null },
  );
  assert.deepEqual(readHostCiEvent('github', gh('status'), { sha: SHA, state: 'error' }), {
    sha,
    ignored: null,
  });
  assert.match(
    String(readHostCiEvent('github', gh('status'), { sha: SHA, state: 'pending' })?.ignored),
    /pending/,
  );
  assert.match(
    String(readHostCiEvent('github', gh('status'), { state: 'success' })?.ignored),
    /without a commit/,
  );
  assert.equal(readHostCiEvent('github', gh('push'), { after: SHA }), null);
  assert.equal(readHostCiEvent('github', {}, {}), null);
});

test("GitLab: the Pipeline Hook once the pipeline is over; other hooks are not CI's", () => {
  const payload = (status: Parameters<typeof gitlabPipelinePayload>[0]['status']) =>
    gitlabPipelinePayload({
      path: 'acme/docs',
      pipelineId: 1,
      iid: 1,
      sha,
      ref: 'main',
      status,
      webUrl: 'https://g.test',
    });
  const hook = { 'x-gitlab-event': 'Pipeline Hook' };
  for (const status of ['success', 'failed', 'canceled'] as const) {
    assert.deepEqual(readHostCiEvent('gitlab', hook, payload(status)), { sha, ignored: null });
  }
  assert.match(String(readHostCiEvent('gitlab', hook, payload('running'))?.ignored), /running/);
  assert.equal(readHostCiEvent('gitlab', { 'x-gitlab-event': 'Push Hook' }, { object_kind: 'push' }), null);
});

test('Gitea: the status event when final', () => {
  const payload = (state: Parameters<typeof giteaStatusPayload>[0]['state']) =>
    giteaStatusPayload({
      fullName: 'acme/docs',
      sha,
      context: 'ci',
      state,
      description: '',
      targetUrl: 'https://ci.test/1',
      webUrl: 'https://g.test',
    });
  const hook = { 'x-gitea-event': 'status' };
  assert.deepEqual(readHostCiEvent('gitea', hook, payload('failure')), { sha, ignored: null });
  assert.deepEqual(readHostCiEvent('gitea', hook, payload('warning')), { sha, ignored: null });
  assert.match(String(readHostCiEvent('gitea', hook, payload('pending'))?.ignored), /pending/);
  assert.equal(readHostCiEvent('gitea', { 'x-gitea-event': 'push' }, payload('failure')), null);
});
