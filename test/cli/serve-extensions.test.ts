// The hook through which the job worker joins `docwright serve`: an extension starts with the
// database, hears about queued jobs, and is stopped at shutdown before the database closes.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { withSecretKey } from '../../src/config/secret-key-file.ts';
import { serve } from '../../src/main/serve.ts';
import type { ServeContext } from '../../src/main/serve-extension.ts';
import { createLogger } from '../../src/util/logger.ts';
import { tempDataDir } from './cli-process.ts';

test('extensions start with the server, get queued jobs, and stop before the database closes', async () => {
  const dataDir = tempDataDir();
  const config = withSecretKey(
    loadConfig({
      DOCWRIGHT_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      DOCWRIGHT_MODEL: 'openai:gpt-test',
    }),
  );
  const events: string[] = [];
  let context: ServeContext | undefined;
  let printed = '';
  try {
    const server = await serve(config, {
      logger: createLogger('silent'),
      terminal: true, // the tests read the key and the setup link from what is printed
      print: (text) => {
        printed += text;
      },
      extensions: [
        {
          name: 'recorder',
          async start(ctx) {
            context = ctx;
            events.push('started');
            return {
              onJobQueued: (jobId) => events.push(`queued ${jobId}`),
              async close() {
                // The database must still answer here: a worker records its last state.
                const rows = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects');
                events.push(`closed with ${rows[0]!.n} project(s)`);
              },
            };
          },
        },
      ],
    });
    server.onShutdown(async () => {
      events.push('onShutdown');
    });
    assert.equal(context?.config, config);

    const projectId = /DOCWRIGHT_PROJECT=(\S+)/.exec(printed)![1]!;
    const key = /DOCWRIGHT_API_KEY=(\S+)/.exec(printed)![1]!;
    const res = await fetch(`${server.baseUrl}/v2/agent/${projectId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Rewrite the intro.' }),
    });
    assert.equal(res.status, 201);
    const job = (await res.json()) as { id: string; status: string };
    assert.equal(job.status, 'active');

    await server.close();
    assert.deepEqual(events, ['started', `queued ${job.id}`, 'onShutdown', 'closed with 1 project(s)']);
    assert.equal(existsSync(join(dataDir, 'docwright.lock')), false);
    await server.close(); // twice is harmless
  } finally {
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }
});
