// A project's stored code-host token goes only to the code host it was stored for. Someone who
// may change the project points its repository at a server of their own (here a local one that
// records every request) and starts a job: the job fails before any request, naming the secret to
// set again, and the token never arrives there. Set again for the new repository, it is used.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { getProject, updateProject } from '../../src/modules/projects/service.ts';
import { TEST_REPOSITORIES } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';
import { type AgentHarness, startAgentHarness } from './agent-harness.ts';
import { scriptDocsEdit } from './scripts.ts';

/** Every credential a request carried, decoded where it is Basic. */
function credentialsOf(headers: IncomingHttpHeaders): string {
  const auth = String(headers.authorization ?? '');
  const basic = /^Basic\s+(\S+)/i.exec(auth);
  return basic ? `${auth} ${Buffer.from(basic[1]!, 'base64').toString('utf8')}` : auth;
}

await forEachBackend('a stored code-host token follows its host, not the repository URL', ({ db }) => {
  let h: AgentHarness;
  const received: string[] = [];
  const elsewhere = createServer((request, response) => {
    received.push(`${request.method} ${request.url} ${credentialsOf(request.headers)}`);
    // What a server fishing for credentials answers: a challenge, so git sends what it has.
    response.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end();
  });
  let elsewhereUrl = '';

  before(async () => {
    h = await startAgentHarness(db());
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/x.git`;
  });
  after(async () => {
    await h.close();
    await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
  });

  test('pointed at another host, the job fails before sending the token there', {
    timeout: 60_000,
  }, async () => {
    const original = await getProject(db(), h.project.id);
    // The same code host settings, only the repository moves (to a host that is not github.com,
    // so the kind is given, as the dashboard form always does).
    await updateProject(
      db(),
      h.project.id,
      { repositoryUrl: elsewhereUrl, codeHostKind: original.codeHost.kind },
      TEST_REPOSITORIES,
    );
    scriptDocsEdit(h.llm);
    const created = await h.createJob('Edit the guide');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.ok(
      received.every((line) => !line.includes(h.token)),
      `the token reached the other host: ${received.join(' | ')}`,
    );
    assert.equal(job.error?.code, 'code_host_auth', job.error?.message);
    assert.match(
      job.error?.message ?? '',
      /codeHostToken secret was stored for github at http:\/\/127\.0\.0\.1:\d+/,
    );
    assert.match(job.error?.message ?? '', /set it again for this repository/);
    assert.ok(!(job.error?.message ?? '').includes(h.token));
    assert.deepEqual(received, [], 'nothing at all was sent there');
  });

  test('set again for the new repository, the token is sent there', { timeout: 60_000 }, async () => {
    await h.setCodeHostToken(h.token);
    scriptDocsEdit(h.llm);
    const created = await h.createJob('Edit the guide again');
    const job = await h.waitForJob(created.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'code_host_auth', job.error?.message);
    assert.ok(
      received.some((line) => line.includes(h.token)),
      'git sent the token it was given for this host',
    );
  });
});
