// `docwright agents list`: the curated list with how each agent is verified, extra robots.json
// lists from DOCWRIGHT_EXTRA_AGENT_LISTS, and clear failures for lists that cannot be used.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cliEnv, runCli, runJson, STACK_LINE } from './cli-process.ts';

const EXTRA = fileURLToPath(new URL('../analytics/fixtures/robots-extra.json', import.meta.url));
const CURATED = fileURLToPath(new URL('../../data/ai-agents.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'dw-agents-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// agents list needs no database: it must not even create the data directory.
const env = cliEnv({ DOCWRIGHT_DATA_DIR: join(dir, 'never-created') });

interface Listing {
  agents: {
    name: string;
    operator: string;
    category: string;
    verifiedBy: string[];
    ipRangesPublished: boolean;
    ipPrefixes: number;
    source: string;
  }[];
  skipped: { token: string; reason: string }[];
}

test('--json lists every curated agent with operator, category, verification and source', async () => {
  const listing = await runJson<Listing>(['agents', 'list', '--json'], env);
  const curated = JSON.parse(readFileSync(CURATED, 'utf8')) as {
    agents: { name: string; operator: string; category: string; ipRanges?: { prefixes: string[] } }[];
  };
  assert.equal(listing.agents.length, curated.agents.length);
  for (const entry of curated.agents) {
    const row = listing.agents.find((a) => a.name === entry.name);
    assert.ok(row, entry.name);
    assert.equal(row.operator, entry.operator);
    assert.equal(row.category, entry.category);
    assert.equal(row.source, 'curated');
    const published = (entry.ipRanges?.prefixes.length ?? 0) > 0;
    assert.equal(row.ipRangesPublished, published, entry.name);
    assert.equal(row.verifiedBy.includes('ip_ranges'), published, entry.name);
    assert.equal(row.ipPrefixes, entry.ipRanges?.prefixes.length ?? 0);
  }
  assert.deepEqual(listing.skipped, []);
  assert.throws(() => readFileSync(join(dir, 'never-created', 'secret.key')));
});

test('the text table names the verification method of each agent', async () => {
  const result = await runCli(['agents', 'list'], env);
  assert.equal(result.code, 0, result.stderr);
  const gptbot = result.stdout.split('\n').find((l) => /^GPTBot\s/.test(l));
  assert.ok(gptbot, result.stdout);
  assert.match(gptbot, /OpenAI\s+training\s+IP ranges \(\d+ prefixes, [0-9-]+\)\s+curated/);
  assert.match(result.stdout, /claim only \(no published ranges\)/);
  assert.match(result.stdout, /recognised by isbot/);
});

test('DOCWRIGHT_EXTRA_AGENT_LISTS adds the agents of robots.json lists, with their file as source', async () => {
  const listing = await runJson<Listing>(['agents', 'list', '--json'], {
    ...env,
    DOCWRIGHT_EXTRA_AGENT_LISTS: ` ${EXTRA} ,`,
  });
  const extra = listing.agents.filter((a) => a.source === EXTRA);
  assert.ok(extra.length > 0);
  const assistant = extra.find((a) => a.name === 'ExampleAssistant-User');
  assert.deepEqual(
    assistant && {
      operator: assistant.operator,
      category: assistant.category,
      verifiedBy: assistant.verifiedBy,
    },
    { operator: 'Example AI', category: 'assistant', verifiedBy: [] },
  );
  assert.ok(
    extra.some((a) => a.name === 'ExampleTrainer'),
    'the version is not part of the token',
  );
});

test('a list that does not exist, or is not a robots.json list, is a configuration error (exit 1, no stack)', async () => {
  const missing = await runCli(['agents', 'list'], {
    ...env,
    DOCWRIGHT_EXTRA_AGENT_LISTS: join(dir, 'nope.json'),
  });
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /DOCWRIGHT_EXTRA_AGENT_LISTS names .*nope\.json, which is not a readable file/,
  );
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"x": ');
  const bad = await runCli(['agents', 'list'], { ...env, DOCWRIGHT_EXTRA_AGENT_LISTS: broken });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /broken\.json.*cannot be read as JSON/);
  for (const r of [missing, bad]) assert.doesNotMatch(r.stderr, STACK_LINE);
});

test('agents sync stores a version that agents list shows; a sync that would drop too much is refused', async () => {
  const dataDir = join(dir, 'synced');
  const syncEnv = cliEnv({ DOCWRIGHT_DATA_DIR: dataDir });
  const list = join(dir, 'robots.json');
  const entry = { operator: 'Example', function: 'AI Assistants' };
  writeFileSync(list, JSON.stringify({ FirstBot: entry, SecondBot: entry, GPTBot: entry }));
  const synced = await runJson<{ version: number; added: string[]; skipped: { token: string }[] }>(
    ['agents', 'sync', '--from', list, '--json'],
    syncEnv,
  );
  assert.equal(synced.version, 1);
  assert.deepEqual(synced.added.sort(), ['FirstBot', 'SecondBot']);
  assert.ok(
    synced.skipped.some((s) => s.token === 'GPTBot'),
    'the curated GPTBot wins',
  );

  const listing = await runJson<Listing & { list: { version: number; source: string; syncedAt: string } }>(
    ['agents', 'list', '--json'],
    syncEnv,
  );
  assert.equal(listing.list.version, 1);
  assert.equal(listing.list.source, list);
  assert.match(listing.list.syncedAt, /^\d{4}-\d{2}-\d{2}T/);
  assert.match(listing.agents.find((a) => a.name === 'FirstBot')?.source ?? '', /^sync v1 /);
  const text = await runCli(['agents', 'list'], syncEnv);
  assert.match(text.stdout, /Synced list: version 1 from .*robots\.json, synced \d{4}-/);

  writeFileSync(list, JSON.stringify({ ThirdBot: entry }));
  const refused = await runCli(['agents', 'sync', '--from', list], syncEnv);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /would drop 2 of the 2 synced entries .*nothing changed/);
  assert.doesNotMatch(refused.stderr, STACK_LINE);
  const after = await runJson<{ list: { version: number } }>(['agents', 'list', '--json'], syncEnv);
  assert.equal(after.list.version, 1);
});

test('agents sync --referrers stores a version of the AI-referrer list; without a source it says what to give', async () => {
  const syncEnv = cliEnv({ DOCWRIGHT_DATA_DIR: join(dir, 'referrers') });
  const list = join(dir, 'referrers.json');
  const assistant = (name: string, host: string) => ({
    name,
    operator: 'Example',
    hosts: [host],
    utmSources: [],
    sources: [`https://${host}/`],
  });
  writeFileSync(
    list,
    JSON.stringify({
      assistants: [assistant('FirstAssistant', 'first.example'), assistant('ChatGPT', 'x.example')],
    }),
  );
  const synced = await runJson<{ version: number; added: string[]; skipped: { token: string }[] }>(
    ['agents', 'sync', '--referrers', '--from', list, '--json'],
    syncEnv,
  );
  assert.deepEqual([synced.version, synced.added], [1, ['FirstAssistant']]);
  assert.deepEqual(
    synced.skipped.map((s) => s.token),
    ['ChatGPT'],
  );
  // The agent list is untouched, and a refused list changes nothing.
  const listing = await runJson<{ list: unknown }>(['agents', 'list', '--json'], syncEnv);
  assert.equal(listing.list, null);
  writeFileSync(list, JSON.stringify({ assistants: [assistant('Bad', 'com')] }));
  const refused = await runCli(['agents', 'sync', '--referrers', '--from', list], syncEnv);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /AI-referrer list .* is invalid: .*nothing changed/);
  const missing = await runCli(['agents', 'sync', '--referrers'], syncEnv);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--referrers needs --from/);
});
