// The data directory holds repository mirrors, worktrees and (on the embedded database) the
// database and its key: whichever engine, opening the database leaves it readable by the owner only.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/open.ts';
import { tempDataDir } from '../cli/cli-process.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';

for (const engine of ['postgres', 'pglite'] as const) {
  describe(`the data directory on ${engine}`, () => {
    let database: { url: string; drop: () => Promise<void> } | null = null;
    const dirs: string[] = [];
    before(async () => {
      if (engine === 'postgres') database = await createPostgresDatabase();
    });
    after(async () => {
      await database?.drop();
      for (const dir of dirs) rmSync(dirname(dir), { recursive: true, force: true });
    });

    const open = async (dataDir: string) => {
      const opened = await openDatabase({ databaseUrl: database?.url ?? null, dataDir }, 'serve');
      await opened.close();
    };

    test('is created with mode 0700', async () => {
      const dataDir = tempDataDir();
      dirs.push(dataDir);
      await open(dataDir);
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    });

    test('is made private when it exists with a looser mode', async () => {
      const dataDir = tempDataDir();
      dirs.push(dataDir);
      mkdirSync(dataDir, { recursive: true });
      chmodSync(dataDir, 0o755);
      await open(dataDir);
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    });
  });
}
