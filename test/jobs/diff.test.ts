// The job's diff: capping (unit), and saveJobDiff + GET .../job/{id}/diff on both backends with a
// diff made by real git, which must still apply after the round trip through the database.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Database } from '../../src/db/database.ts';
import type { App } from '../../src/http/context.ts';
import { capDiff, saveJobDiff } from '../../src/modules/jobs/diff/service.ts';
import { cancelJob, createJob } from '../../src/modules/jobs/service.ts';
import { bearer, createTestApp, seedProject } from '../helpers/app.ts';
import { forEachBackend } from '../helpers/databases.ts';

const run = promisify(execFile);

describe('capDiff', () => {
  test('a diff under the cap is kept as it is', () => {
    const diff = 'diff --git a/a.md b/a.md\n--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-old\n+new\n';
    assert.deepEqual(capDiff(diff, 1000), {
      text: diff,
      totalBytes: Buffer.byteLength(diff),
      truncated: false,
    });
  });

  test('a diff over the cap is cut at the end of a line, with a note saying how much was left out', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `+line ${i} ${'é'.repeat(10)}`).join('\n');
    const capped = capDiff(lines, 500);
    assert.equal(capped.truncated, true);
    assert.equal(capped.totalBytes, Buffer.byteLength(lines));
    const [kept, note] = capped.text.split('# docwright: ');
    assert.ok(Buffer.byteLength(kept!) <= 500);
    assert.ok(kept!.endsWith('\n'));
    assert.ok(lines.startsWith(kept!), 'the kept part is the start of the diff, unchanged');
    assert.match(
      note!,
      /^diff truncated: the first \d+ bytes of \d\.\d KiB are shown; the job's branch has all of it\.\n$/,
    );
  });

  test('one enormous line is cut between characters, never inside one', () => {
    const line = `+${'日本語'.repeat(400)}`;
    const capped = capDiff(line, 301);
    const kept = capped.text.split('\n# docwright:')[0]!;
    assert.ok(!kept.includes('\uFFFD'), 'no broken character');
    assert.ok(line.startsWith(kept));
    assert.ok(Buffer.byteLength(kept) <= 301 && Buffer.byteLength(kept) > 295);
  });

  test('NUL, which PostgreSQL text cannot hold, becomes U+FFFD', () => {
    assert.equal(capDiff('+a\0b\n', 100).text, '+a\uFFFDb\n');
  });
});

await forEachBackend('job diff route', ({ db }) => {
  describe('GET .../job/{id}/diff', () => {
    let app: App;
    let seeded: Awaited<ReturnType<typeof seedProject>>;
    let repo: string;
    let realDiff: string;

    before(async () => {
      app = await createTestApp(db());
      seeded = await seedProject(db());
      // A real diff from real git: an edited, an added and a deleted Markdown file.
      repo = await mkdtemp(join(await tmpFs(), 'dw-diff-'));
      const git = (...args: string[]) =>
        run('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], { cwd: repo });
      await git('init', '-q', '-b', 'main');
      await writeFile(join(repo, 'guide.md'), '# Guide\n\nInstall with npm.\n');
      await writeFile(join(repo, 'old.md'), 'Old page\n');
      await git('add', '.');
      await git('commit', '-q', '-m', 'base');
      await git('checkout', '-q', '-b', 'docwright/fix');
      await writeFile(
        join(repo, 'guide.md'),
        '# Guide\n\nInstall with `npm install docwright`.\n\nÜbersicht: ✓\n',
      );
      await writeFile(join(repo, 'new.md'), '# New\n');
      await git('rm', '-q', 'old.md');
      await git('add', '.');
      await git('commit', '-q', '-m', 'edit');
      realDiff = (await git('diff', 'main...docwright/fix')).stdout;
    });
    after(async () => {
      await app.close();
      await rm(repo, { recursive: true, force: true });
    });

    const newJob = async (prompt = 'p') =>
      (
        await createJob(
          db() as Database,
          { jobRateLimitPerHour: 1000, defaultModel: 'openai:gpt-test' },
          {
            projectId: seeded.project.id,
            prompt,
            idempotencyKey: null,
          },
        )
      ).job;
    const get = (jobId: string, headers: Record<string, string> = {}, query = '') =>
      app.inject({
        method: 'GET',
        url: `/v2/agent/${seeded.project.id}/job/${jobId}/diff${query}`,
        headers: { ...bearer(seeded.readKey), ...headers },
      });

    test('text/x-diff by default: exactly the saved diff, which git still applies to the base', async () => {
      const job = await newJob();
      assert.deepEqual(await saveJobDiff(db(), job.id, realDiff), {
        totalBytes: Buffer.byteLength(realDiff),
        truncated: false,
      });
      const res = await get(job.id);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/x-diff; charset=utf-8');
      assert.equal(res.headers['docwright-diff-truncated'], 'false');
      assert.equal(res.headers['docwright-diff-total-bytes'], String(Buffer.byteLength(realDiff)));
      assert.equal(res.body, realDiff);
      await run('git', ['checkout', '-q', 'main'], { cwd: repo });
      await writeFile(join(repo, 'served.diff'), res.body);
      await run('git', ['apply', '--check', 'served.diff'], { cwd: repo });
    });

    test('JSON with Accept: application/json or ?format=json; a later save replaces the diff', async () => {
      const job = await newJob();
      await saveJobDiff(db(), job.id, 'first\n');
      await saveJobDiff(db(), job.id, realDiff);
      for (const res of [
        await get(job.id, { accept: 'application/json' }),
        await get(job.id, {}, '?format=json'),
      ]) {
        assert.equal(res.statusCode, 200);
        assert.match(res.headers['content-type'] as string, /^application\/json/);
        const body = res.json();
        assert.equal(body.diff, realDiff);
        assert.equal(body.truncated, false);
        assert.equal(body.totalBytes, Buffer.byteLength(realDiff));
        assert.ok(!Number.isNaN(Date.parse(body.updatedAt)));
      }
    });

    test('a diff over the cap is stored cut, and both forms say so', async () => {
      const job = await newJob();
      const big = realDiff.repeat(50);
      const saved = await saveJobDiff(db(), job.id, big, 2048);
      assert.deepEqual(saved, { totalBytes: Buffer.byteLength(big), truncated: true });
      const text = await get(job.id);
      assert.equal(text.headers['docwright-diff-truncated'], 'true');
      assert.equal(text.headers['docwright-diff-total-bytes'], String(Buffer.byteLength(big)));
      assert.match(text.body, /\n# docwright: diff truncated: the first 2\.0 KiB of \d+\.\d KiB are shown/);
      const json = (await get(job.id, { accept: 'application/json' })).json();
      assert.equal(json.truncated, true);
      assert.equal(json.diff, text.body);
    });

    test('404 job_diff_not_found says why: still running, no file changed, failed before committing', async () => {
      const running = await newJob();
      const res = await get(running.id);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'job_diff_not_found');
      assert.match(res.json().error, /still running/);

      const cancelled = await newJob();
      await cancelJob(db(), seeded.project.id, cancelled.id);
      assert.match((await get(cancelled.id)).json().error, /failed before the agent committed/);

      const nothing = await newJob();
      await db().query("UPDATE jobs SET status = 'completed', pr_link = NULL WHERE id = $1", [nothing.id]);
      assert.match((await get(nothing.id)).json().error, /without changing any file/);
    });

    test('unknown job 404 job_not_found; other project 403; ingest key 403; no key 401', async () => {
      const unknown = await get('job_nothere0000000');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'job_not_found');
      const job = await newJob();
      await saveJobDiff(db(), job.id, realDiff);
      const other = await seedProject(db());
      assert.equal((await get(job.id, bearer(other.readKey))).statusCode, 403);
      assert.equal((await get(job.id, bearer(seeded.ingestKey))).statusCode, 403);
      const anonymous = await app.inject({
        method: 'GET',
        url: `/v2/agent/${seeded.project.id}/job/${job.id}/diff`,
      });
      assert.equal(anonymous.statusCode, 401);
      const viaOther = await app.inject({
        method: 'GET',
        url: `/v2/agent/${other.project.id}/job/${job.id}/diff`,
        headers: bearer(other.readKey),
      });
      assert.equal(viaOther.statusCode, 404, 'a job is only found through its own project');
      assert.equal((await get(job.id, {}, '?format=xml')).statusCode, 400);
    });
  });
});

/** /dev/shm when there is one (the disk here is slow), else the system temp directory. */
async function tmpFs(): Promise<string> {
  try {
    await run('test', ['-w', '/dev/shm']);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
