// The API key cache (src/modules/keys/key-cache.ts): a usable key's verdict is kept, so its
// requests run no statement, and a revocation takes effect on the very next request, whether it
// was made in this process, by another process (PostgreSQL: another pool, heard through NOTIFY),
// while a check was reading the row, or while the LISTEN connection was away.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/context.ts';
import { ApiKeyCache } from '../../src/modules/keys/key-cache.ts';
import { KEYS_CHANNEL, updateKeyRevoked } from '../../src/modules/keys/queries.ts';
import { createKey, revokeKey } from '../../src/modules/keys/service.ts';
import { createLogger } from '../../src/util/logger.ts';
import { bearer, seedProject } from '../helpers/app.ts';
import { forEachBackend, TEST_DATABASE_URL } from '../helpers/databases.ts';

/** Resolves at the first value that satisfies the predicate, among those pushed from now on. */
class Events<T> {
  #waiting: { match: (value: T) => boolean; resolve: () => void }[] = [];
  push(value: T): void {
    this.#waiting = this.#waiting.filter((w) => {
      if (!w.match(value)) return true;
      w.resolve();
      return false;
    });
  }
  next(match: (value: T) => boolean): Promise<void> {
    return new Promise((resolve) => this.#waiting.push({ match, resolve }));
  }
}

/** A second pool on the same database: what another docwright process would use. */
async function secondPool(db: Database): Promise<Database> {
  const [row] = await db.query<{ name: string }>('SELECT current_database() AS name');
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${row!.name}`;
  return openPostgres(url.toString(), { max: 1 });
}

await forEachBackend('API key cache', ({ backend, db }) => {
  const statements: string[] = [];
  const notifications = new Events<string>();
  const connections = new Events<boolean>();
  let counting: Database;
  let cache: ApiKeyCache;
  let app: App;
  let projectId: string;

  before(async () => {
    const real = db();
    // The app's database, counting the statements its requests run.
    counting = {
      ...real,
      query: (sql, params) => {
        statements.push(sql.trim().split(/\s+/)[0]!.toUpperCase());
        return real.query(sql, params);
      },
    };
    cache = new ApiKeyCache(counting, {
      onNotification: (payload) => notifications.push(payload),
      onConnection: (connected) => connections.push(connected),
    });
    await cache.start();
    app = await buildApp({
      db: counting,
      logger: createLogger('silent'),
      config: {
        jobRateLimitPerHour: 100,
        defaultModel: 'openai:gpt-test',
        publicUrl: 'http://127.0.0.1:3000',
      },
      keys: cache,
    });
    projectId = (await seedProject(real)).project.id;
  });
  after(async () => {
    await app.close();
    await cache.close();
  });

  const list = (key: string) =>
    app.inject({ url: `/v2/agent/${projectId}/jobs?limit=1`, headers: bearer(key) });
  const newKey = () => createKey(db(), { projectId, scope: 'admin' });

  test('a usable key is read once: its next requests run no statement for the key', async () => {
    const k = await newKey();
    assert.equal((await list(k.key)).statusCode, 200);
    statements.length = 0;
    const read = await cache.check(k.key);
    assert.equal(read.ok, true);
    assert.deepEqual(statements, [], 'the verdict came from memory');
  });

  test('a key revoked in this process is refused on the very next request', async () => {
    const k = await newKey();
    assert.equal((await list(k.key)).statusCode, 200);
    assert.equal((await list(k.key)).statusCode, 200, 'now from the cache');
    await revokeKey(db(), k.id);
    const res = await list(k.key);
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'The API key has been revoked.');
  });

  test('a revocation that commits while a check reads the row is not kept as usable', async () => {
    const k = await newKey();
    // A cache whose reads of a key's row wait, after the row came back, until released.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading: () => void = () => {};
    const readDone = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const slow: Database = {
      ...db(),
      query: async (sql, params) => {
        const rows = await db().query(sql, params);
        if (/FROM api_keys WHERE secret_hash/.test(sql)) {
          reading();
          await held;
        }
        return rows as never;
      },
    };
    const own = new ApiKeyCache(slow);
    await own.start();
    try {
      const first = own.check(k.key);
      await readDone; // the row was read as usable
      await revokeKey(db(), k.id);
      release();
      assert.equal((await first).ok, true, 'that check read the row before the revocation');
      assert.deepEqual(await own.check(k.key), { ok: false, reason: 'revoked' });
    } finally {
      await own.close();
    }
  });

  if (backend !== 'postgres') return;

  test('a key revoked by another process (another pool) is refused on the very next request', async () => {
    const other = await secondPool(db());
    try {
      const k = await newKey();
      assert.equal((await list(k.key)).statusCode, 200);
      assert.equal((await list(k.key)).statusCode, 200, 'now from the cache');
      statements.length = 0;
      // What `docwright keys revoke` does in another process: the statement alone, no in-process call.
      await updateKeyRevoked(other, k.id);
      // A marker sent after it: notifications arrive in commit order, so once the cache heard the
      // marker it heard everything the revocation sent (the delivery a real request races with).
      const heard = notifications.next((p) => p === 'marker-1');
      await other.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, 'marker-1']);
      await heard;
      const res = await list(k.key);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error, 'The API key has been revoked.');
      assert.ok(statements.includes('SELECT'), 'the row was read again');
    } finally {
      await other.close();
    }
  });

  test('while the LISTEN connection is away the cache is not used, and it starts empty when back', async () => {
    const other = await secondPool(db());
    try {
      const a = await newKey();
      const b = await newKey();
      for (const k of [a, b]) {
        assert.equal((await list(k.key)).statusCode, 200);
        assert.equal((await list(k.key)).statusCode, 200);
      }
      const lost = connections.next((c) => !c);
      const back = connections.next((c) => c);
      await other.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND query = $1`,
        [`LISTEN "${KEYS_CHANNEL}"`],
      );
      await lost;
      assert.equal(cache.active, false);
      // Revoked while nobody listens: the NOTIFYs are lost to this process.
      await updateKeyRevoked(other, a.id);
      await updateKeyRevoked(other, b.id);
      assert.equal((await list(a.key)).statusCode, 401, 'not answered from the cache while away');
      await back;
      assert.equal(cache.active, true);
      assert.equal((await list(b.key)).statusCode, 401, 'what was kept before the loss is gone');
    } finally {
      await other.close();
    }
  });
});
