import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { withSecretKey } from '../../src/config/secret-key-file.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'dw-config-'));

test('defaults: port 3000 on 127.0.0.1, ./.docwright, PGlite, a generated secret key kept private', () => {
  const cwd = tmp();
  const config = withSecretKey(loadConfig({}, cwd));
  assert.equal(config.port, 3000);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.dataDir, join(cwd, '.docwright'));
  assert.equal(config.databaseUrl, null);
  assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
  assert.equal(config.jobRateLimitPerHour, 100);
  assert.equal(config.secretKeySource, 'data-dir');
  const file = join(cwd, '.docwright', 'secret.key');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readFileSync(file, 'utf8').trim(), config.secretKey.toString('hex'));
  assert.deepEqual(
    withSecretKey(loadConfig({}, cwd)).secretKey,
    config.secretKey,
    'the same key on the next start',
  );
});

test('reading the configuration writes nothing: the key file is made by the commands that need it', () => {
  const cwd = tmp();
  const config = loadConfig({}, cwd);
  assert.equal(config.secretKey, null, 'the key is to come from the data directory');
  assert.equal(existsSync(join(cwd, '.docwright')), false);
  const bad = join(cwd, 'bad');
  mkdirSync(bad);
  writeFileSync(join(bad, 'secret.key'), 'not a key\n');
  assert.throws(
    () => withSecretKey(loadConfig({ DOCWRIGHT_DATA_DIR: 'bad' }, cwd)),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.problems[0] === `${join(bad, 'secret.key')} does not hold a valid key (64 hex characters).`,
  );
});

test('every problem is reported at once, each naming its variable, without echoing DATABASE_URL', () => {
  try {
    loadConfig(
      {
        PORT: 'abc',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://root:hunter2@db/x',
        DOCWRIGHT_JOB_RATE_LIMIT: '0',
        DOCWRIGHT_MODEL: 'gpt',
        DOCWRIGHT_SECRET_KEY: 'short',
      },
      tmp(),
    );
    assert.fail('should throw');
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    const text = error.problems.join('\n');
    for (const name of [
      'PORT',
      'LOG_LEVEL',
      'DATABASE_URL',
      'DOCWRIGHT_JOB_RATE_LIMIT',
      'DOCWRIGHT_MODEL',
      'DOCWRIGHT_SECRET_KEY',
    ]) {
      assert.match(text, new RegExp(name), name);
    }
    assert.equal(error.problems.length, 6);
    assert.ok(!text.includes('hunter2'));
  }
});

test('PostgreSQL needs a shared secret key; a given key is used as is and nothing is written', () => {
  const cwd = tmp();
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1/x' }, cwd),
    (e: ConfigError) => /DOCWRIGHT_SECRET_KEY is required/.test(e.message),
  );
  const hex = 'ab'.repeat(32);
  const config = withSecretKey(
    loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1/x', DOCWRIGHT_SECRET_KEY: hex }, cwd),
  );
  assert.equal(config.secretKey.toString('hex'), hex);
  assert.equal(config.secretKeySource, 'environment');
  assert.equal(existsSync(join(cwd, '.docwright', 'secret.key')), false);
  const b64 = Buffer.alloc(32, 7).toString('base64');
  assert.deepEqual(loadConfig({ DOCWRIGHT_SECRET_KEY: b64 }, cwd).secretKey, Buffer.alloc(32, 7));
});

test('PORT, HOST, data dir and public URL are honoured', () => {
  const cwd = tmp();
  const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DOCWRIGHT_DATA_DIR: 'data' }, cwd);
  assert.equal(config.port, 8080);
  assert.equal(config.publicUrl, 'http://localhost:8080');
  assert.equal(config.dataDir, join(cwd, 'data'));
  const withUrl = loadConfig({ DOCWRIGHT_PUBLIC_URL: 'https://docs-bot.example.com/' }, cwd);
  assert.equal(withUrl.publicUrl, 'https://docs-bot.example.com');
});

test('DOCWRIGHT_TRUSTED_PROXIES: addresses, ranges and range names are kept; anything else is named', () => {
  assert.deepEqual(loadConfig({}, tmp()).trustedProxies, []);
  assert.deepEqual(
    loadConfig({ DOCWRIGHT_TRUSTED_PROXIES: ' 10.0.0.0/8, 192.0.2.7 ,loopback,fd00::/8,::1' }, tmp())
      .trustedProxies,
    ['10.0.0.0/8', '192.0.2.7', 'loopback', 'fd00::/8', '::1'],
  );
  assert.throws(
    () => loadConfig({ DOCWRIGHT_TRUSTED_PROXIES: '10.0.0.0/33,true,lb.internal,192.0.2.1' }, tmp()),
    (error: ConfigError) =>
      error.problems.length === 1 &&
      /^DOCWRIGHT_TRUSTED_PROXIES .*not understood: "10\.0\.0\.0\/33", "true", "lb\.internal"\.$/.test(
        error.problems[0]!,
      ),
  );
});

test('DOCWRIGHT_MODEL_TIMEOUT_SECONDS: 300 s by default, whole seconds from 1, anything else named', () => {
  assert.equal(loadConfig({}, tmp()).modelTimeoutMs, 300_000);
  assert.equal(loadConfig({ DOCWRIGHT_MODEL_TIMEOUT_SECONDS: '45' }, tmp()).modelTimeoutMs, 45_000);
  for (const bad of ['0', '2.5', 'soon']) {
    assert.throws(
      () => loadConfig({ DOCWRIGHT_MODEL_TIMEOUT_SECONDS: bad }, tmp()),
      (e: ConfigError) =>
        e.problems.length === 1 &&
        e.problems[0] === `DOCWRIGHT_MODEL_TIMEOUT_SECONDS must be an integer from 1 to 86400; got "${bad}".`,
    );
  }
});

test('the agent list: refresh every 30 s, no scheduled sync, 20% drop bound by default; each variable checked', () => {
  const defaults = loadConfig({}, tmp()).agentList;
  assert.deepEqual(defaults, {
    refreshMs: 30_000,
    syncUrl: null,
    referrerSyncUrl: null,
    syncIntervalMs: 86_400_000,
    maxDropShare: 0.2,
  });
  const set = loadConfig(
    {
      DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS: '5',
      DOCWRIGHT_AGENT_LIST_SYNC_URL: 'https://lists.example/robots.json',
      DOCWRIGHT_REFERRER_LIST_SYNC_URL: 'https://lists.example/ai-referrers.json',
      DOCWRIGHT_AGENT_LIST_SYNC_HOURS: '6',
      DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT: '50',
    },
    tmp(),
  ).agentList;
  assert.deepEqual(set, {
    refreshMs: 5_000,
    syncUrl: 'https://lists.example/robots.json',
    referrerSyncUrl: 'https://lists.example/ai-referrers.json',
    syncIntervalMs: 21_600_000,
    maxDropShare: 0.5,
  });
  assert.throws(
    () =>
      loadConfig(
        {
          DOCWRIGHT_AGENT_LIST_REFRESH_SECONDS: '0',
          DOCWRIGHT_AGENT_LIST_SYNC_URL: 'ftp://x',
          DOCWRIGHT_REFERRER_LIST_SYNC_URL: 'file:///x',
          DOCWRIGHT_AGENT_LIST_MAX_DROP_PERCENT: '101',
        },
        tmp(),
      ),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.problems.length === 4 &&
      /REFERRER_LIST_SYNC_URL must be an http\(s\) URL/.test(error.problems.join()) &&
      /REFRESH_SECONDS/.test(error.problems.join()) &&
      /SYNC_URL must be an http\(s\) URL/.test(error.problems.join()) &&
      /MAX_DROP_PERCENT/.test(error.problems.join()),
  );
});
