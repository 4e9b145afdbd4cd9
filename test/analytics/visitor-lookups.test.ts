// The in-memory lookups ingest makes for every view's visitor (visitor-ids.ts, visitor-memo.ts):
// the hasher's memo (a front table by user agent, then address) must give exactly the id the
// SHA-256 construction gives, for any number of senders, so counts stay what they were; the
// writer's memo (a table of (key, id) pairs) must answer exactly which ids were committed for
// which page, hour and class, across its growth and its reset.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { CommittedVisitors } from '../../src/modules/analytics/store/index.ts';
import { VisitorHasher } from '../../src/modules/analytics/store/visitor-ids.ts';
import { VisitorSets } from '../../src/modules/analytics/store/visitor-sets.ts';

const SALT = new Uint8Array(32).map((_, i) => i * 7 + 3);

/** The id as the construction defines it (docs/analytics-visitors.md), computed apart. */
function expectedId(projectId: string, visitorClass: string, address: string, agent: string): number {
  const digest = createHash('sha256')
    .update(`${Buffer.from(SALT).toString('hex')}\0${projectId}\0${visitorClass}\0${address}\0${agent}`)
    .digest();
  return digest.readUIntBE(0, 6) * 32 + (digest[6]! >>> 3);
}

test('hasher: memoised ids equal the construction for thousands of user agents and addresses', () => {
  const hasher = new VisitorHasher(SALT);
  // More user agents than the front table holds (2,048), each from several addresses, twice over.
  for (let round = 0; round < 2; round++) {
    for (let u = 0; u < 3000; u++) {
      const agent = `Mozilla/5.0 (X11; Linux x86_64) Chrome/${u}.0 Safari/537.36`;
      for (const address of [`192.0.2.${u % 7}`, `2001:db8::${u % 5}`]) {
        // Fresh strings each time, as JSON.parse gives them.
        const id = hasher.id('prj_a', 'human', `${address}`, `${agent} `.trimEnd());
        assert.equal(id, expectedId('prj_a', 'human', address, agent), `${agent} from ${address}`);
      }
    }
  }
  // AI agents: by address whatever the user agent; without an address, by user agent.
  assert.equal(
    hasher.id('prj_a', 'ai', '192.0.2.9', 'GPTBot/1.0'),
    expectedId('prj_a', 'ai', '192.0.2.9', ''),
  );
  assert.equal(
    hasher.id('prj_a', 'ai', '192.0.2.9', 'ClaudeBot/1.0'),
    expectedId('prj_a', 'ai', '192.0.2.9', ''),
  );
  assert.equal(
    hasher.id('prj_a', 'ai', undefined, 'GPTBot/1.0'),
    expectedId('prj_a', 'ai', '', 'GPTBot/1.0'),
  );
  assert.equal(
    hasher.id('prj_a', 'ai', undefined, 'GPTBot/1.0'),
    expectedId('prj_a', 'ai', '', 'GPTBot/1.0'),
  );
  // A human without a user agent, and one without an address; projects apart.
  assert.equal(
    hasher.id('prj_a', 'human', '192.0.2.1', undefined),
    expectedId('prj_a', 'human', '192.0.2.1', ''),
  );
  assert.equal(hasher.id('prj_a', 'human', undefined, 'curl/8'), expectedId('prj_a', 'human', '', 'curl/8'));
  assert.equal(
    hasher.id('prj_b', 'human', '192.0.2.1', undefined),
    expectedId('prj_b', 'human', '192.0.2.1', ''),
  );
  assert.equal(
    hasher.id('prj_a', 'human', '192.0.2.1', undefined),
    expectedId('prj_a', 'human', '192.0.2.1', ''),
  );
});

test('hasher: a sender object finds the memo of its user agent, and ids stay the construction', () => {
  const hasher = new VisitorHasher(SALT);
  // One object per user agent string, as the fast path's profiles are; a second object for the
  // same string (a profile made again) and views without one all share that string's ids.
  const agents = Array.from({ length: 300 }, (_, u) => `Mozilla/5.0 (Macintosh) Firefox/${u}.0`);
  const senders = agents.map(() => ({}));
  const again = agents.map(() => ({}));
  for (let round = 0; round < 3; round++) {
    for (let u = 0; u < agents.length; u++) {
      for (const address of [`198.51.100.${u % 11}`, `198.51.100.${(u + 5) % 13}`]) {
        const agent = `${agents[u]} `.trimEnd();
        const expected = expectedId('prj_s', 'human', address, agents[u]!);
        const sender = round === 0 ? senders[u] : round === 1 ? again[u] : undefined;
        assert.equal(
          hasher.id('prj_s', 'human', `${address}`, agent, sender),
          expected,
          `${agent} from ${address}`,
        );
        // The first object still finds the same string's ids after the others were used.
        assert.equal(hasher.id('prj_s', 'human', `${address}`, agent, senders[u]), expected);
      }
    }
  }
  // Views without a user agent: the sender stands for ''.
  const none = {};
  assert.equal(
    hasher.id('prj_s', 'human', '198.51.100.1', undefined, none),
    expectedId('prj_s', 'human', '198.51.100.1', ''),
  );
  assert.equal(
    hasher.id('prj_s', 'human', '198.51.100.2', undefined, none),
    expectedId('prj_s', 'human', '198.51.100.2', ''),
  );
});

test('hasher: past its limit the memo starts over and ids stay the same', () => {
  const hasher = new VisitorHasher(SALT);
  for (let n = 0; n < 100_100; n++)
    hasher.id('prj_a', 'ai', `10.${n >>> 16}.${(n >>> 8) & 255}.${n & 255}`, 'x');
  for (const n of [0, 99_999, 100_050])
    assert.equal(
      hasher.id('prj_a', 'ai', `10.${n >>> 16}.${(n >>> 8) & 255}.${n & 255}`, 'y'),
      expectedId('prj_a', 'ai', `10.${n >>> 16}.${(n >>> 8) & 255}.${n & 255}`, ''),
    );
});

const HOUR = 1_700_000_000 - (1_700_000_000 % 3600);

function setsOf(visits: [projectId: string, hour: number, cls: 'human' | 'ai', path: string, id: number][]) {
  const sets = new VisitorSets();
  for (const [projectId, hour, cls, path, id] of visits) sets.add(projectId, hour, cls, path, id);
  return sets;
}

test('writer memo: committed ids per key, through growth, full 53-bit ids and keys apart', () => {
  const memo = new CommittedVisitors();
  const big = 2 ** 52 + 12_345; // shares its low 32 bits with 12,345 + 2^32 k: same first slot
  const visits: [string, number, 'human' | 'ai', string, number][] = [];
  for (let i = 0; i < 20_000; i++) visits.push(['prj_a', HOUR, 'human', `/p${i % 100}`, i * 7919]);
  visits.push(['prj_a', HOUR, 'ai', '/p1', big], ['prj_b', HOUR, 'human', '/p1', 12_345]);
  memo.committed(memo.unseen(setsOf(visits)));
  for (let i = 0; i < 20_000; i++)
    assert.equal(memo.has('prj_a', HOUR, 'human', `/p${i % 100}`, i * 7919), true);
  assert.equal(memo.has('prj_a', HOUR, 'human', '/p2', 1 * 7919), false, 'another page');
  assert.equal(memo.has('prj_a', HOUR + 3600, 'human', '/p1', 1 * 7919), false, 'another hour');
  assert.equal(memo.has('prj_a', HOUR, 'ai', '/p1', 1 * 7919), false, 'another class');
  assert.equal(memo.has('prj_a', HOUR, 'ai', '/p1', big), true);
  assert.equal(memo.has('prj_a', HOUR, 'ai', '/p1', 12_345 + 2 ** 32), false, 'same low bits');
  assert.equal(memo.has('prj_a', HOUR, 'ai', '/p1', big + 1), false);
  assert.equal(memo.has('prj_b', HOUR, 'human', '/p1', 12_345), true);
  assert.equal(memo.has('prj_c', HOUR, 'human', '/p1', 12_345), false, 'another project');
  // unseen() gives only what was not committed, each once.
  const fresh = memo.unseen(
    setsOf([
      ['prj_a', HOUR, 'human', '/p1', 7919],
      ['prj_a', HOUR, 'human', '/p1', 5],
      ['prj_a', HOUR, 'human', '/p1', 5],
      ['prj_a', HOUR, 'ai', '/p1', 12_345 + 2 ** 32],
    ]),
  );
  assert.deepEqual(
    [...fresh.entries()].map((s) => [s.visitorClass, s.path, [...s.ids]]),
    [
      ['human', '/p1', [5]],
      ['ai', '/p1', [12_345 + 2 ** 32]],
    ],
  );
});

test('writer memo: past its limit it starts over, forgetting only (never inventing) ids', () => {
  const memo = new CommittedVisitors();
  for (let batch = 0; batch < 6; batch++) {
    const sets = new VisitorSets();
    for (let i = 0; i < 100_000; i++) sets.add('prj_a', HOUR, 'human', '/p', batch * 100_000 + i);
    memo.committed(memo.unseen(sets));
  }
  // 600,000 ids through a memo of 500,000: the last batch is known, the first forgotten.
  assert.equal(memo.has('prj_a', HOUR, 'human', '/p', 599_999), true);
  assert.equal(memo.has('prj_a', HOUR, 'human', '/p', 0), false);
  assert.equal(memo.has('prj_a', HOUR, 'human', '/p', 600_000), false);
});
