// Ingest's staged-id check by numbers (visitor-memo.ts, numbered-visits.ts): a view from a
// canonical IPv4 address is found by (key number, sender number, address number) once its id was
// found committed for that key, without its id. That shortcut must never leave out an id that
// was not committed for its (project, hour, class, path): not across hasher generations (another
// day, a memo that started over), nor after the writer's memo starts over and numbers its keys
// again, nor for a commit that failed. The tally's visitor sets are compared with a model that
// knows only the construction's ids and what was committed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { viewKind } from '../../src/modules/analytics/classification/view-kind.ts';
import { RollupTally } from '../../src/modules/analytics/ingest/rollup-tally.ts';
import { CommittedVisitors } from '../../src/modules/analytics/store/index.ts';
import { VisitorHasher } from '../../src/modules/analytics/store/visitor-ids.ts';
import { type VisitorClass, VisitorSets } from '../../src/modules/analytics/store/visitor-sets.ts';

const HOUR = 1_700_000_000 - (1_700_000_000 % 3600);

function saltOf(seed: number): Uint8Array {
  return new Uint8Array(32).map((_, i) => (i * 13 + seed) & 255);
}

function expectedId(
  salt: Uint8Array,
  projectId: string,
  cls: string,
  address: string,
  agent: string,
): number {
  const digest = createHash('sha256')
    .update(`${Buffer.from(salt).toString('hex')}\0${projectId}\0${cls}\0${address}\0${agent}`)
    .digest();
  return digest.readUIntBE(0, 6) * 32 + (digest[6]! >>> 3);
}

test('writer memo: numbered visits are per key and generation, and go when keys are numbered again', () => {
  const memo = new CommittedVisitors();
  const day = {};
  const sets = new VisitorSets();
  sets.add('prj_a', HOUR, 'human', '/a', 42);
  memo.committed(memo.unseen(sets));
  // The key's number as the tally finds it, for (project, hour, class, path): prj_a's /a by default.
  const key = (path = '/a', visitorClass: VisitorClass = 'human', hour = HOUR, project = 'prj_a') =>
    memo.keyNumber(project, hour, visitorClass, path);
  // First sight of a generation: nothing remembered.
  assert.equal(memo.hasNumbered(key(), day, 7, 0xc0000201), false);
  assert.equal(memo.has('prj_a', HOUR, 'human', '/a', 42), true);
  memo.rememberNumbered(key(), day, 7, 0xc0000201);
  assert.equal(memo.hasNumbered(key(), day, 7, 0xc0000201), true);
  assert.equal(memo.hasNumbered(key(), day, 8, 0xc0000201), false, 'sender');
  assert.equal(memo.hasNumbered(key(), day, 7, 0xc0000202), false, 'address');
  assert.equal(memo.hasNumbered(key('/a', 'ai'), day, 7, 0xc0000201), false, 'class');
  assert.equal(memo.hasNumbered(key('/b'), day, 7, 0xc0000201), false, 'path');
  assert.equal(memo.hasNumbered(key('/a', 'human', HOUR + 3600), day, 7, 0xc0000201), false, 'hour');
  assert.equal(memo.hasNumbered(key('/a', 'human', HOUR, 'prj_b'), day, 7, 0xc0000201), false, 'project');
  // Another generation's numbers mean other senders; coming back, the old ones are forgotten.
  assert.equal(memo.hasNumbered(key(), {}, 7, 0xc0000201), false);
  assert.equal(memo.hasNumbered(key(), day, 7, 0xc0000201), false);
  memo.rememberNumbered(key(), day, 7, 0xc0000201);
  assert.equal(memo.hasNumbered(key(), day, 7, 0xc0000201), true);

  // Nearly 500,000 ids, then a set that takes the memo past its limit: it starts over and numbers
  // its keys again, and /c, the first path numbered afterwards, gets the number /a had. /a's
  // numbered visit must be gone with it.
  // The ids are spread as SHA-256 bits are (an odd multiplier is one-to-one on 32 bits):
  // consecutive ids would pile up in the memo's table, which relies on that spread.
  const spread = (n: number) => Math.imul(n, 0x9e3779b1) >>> 0;
  for (let batch = 0; batch < 5; batch++) {
    const many = new VisitorSets();
    for (let i = 0; i < 99_999; i++)
      many.add('prj_a', HOUR, 'human', `/many${batch}`, spread(batch * 100_000 + i));
    memo.committed(memo.unseen(many));
  }
  const after = new VisitorSets();
  for (let id = 43; id < 48; id++) after.add('prj_a', HOUR, 'human', '/c', id);
  memo.committed(memo.unseen(after));
  assert.equal(memo.has('prj_a', HOUR, 'human', '/many0', 0), false, 'the memo started over');
  assert.equal(memo.hasNumbered(key('/c'), day, 7, 0xc0000201), false);
  assert.equal(memo.hasNumbered(key(), day, 7, 0xc0000201), false);
});

test('tally: visitor sets equal the construction minus what was committed, across days and restarts', () => {
  let seed = 1;
  const random = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const agents = ['Mozilla/5.0 Firefox/130.0', 'Mozilla/5.0 Chrome/129.0', 'GPTBot/1.0', ''];
  // Two objects per user agent string (a profile made again), as the fast path passes them.
  const senders = new Map(agents.map((agent) => [agent, [{}, {}]]));
  const addresses = ['192.0.2.1', '192.0.2.2', '198.51.100.7', '10.0.0.1', '010.0.0.1', '2001:db8::1', ''];
  const paths = ['/a', '/b', '/c'];
  const memo = new CommittedVisitors();
  /** The model: (project, hour, class, path, id) committed. */
  const committed = new Set<string>();
  const keyOf = (p: string, h: number, c: string, path: string, id: number) => `${p} ${h} ${c} ${path} ${id}`;
  let salt = saltOf(1);
  let hasher = new VisitorHasher(salt);
  for (let batch = 0; batch < 300; batch++) {
    // A new day now and then: another salt, another hasher (and its numbers).
    if (batch % 100 === 99) {
      salt = saltOf(batch);
      hasher = new VisitorHasher(salt);
    }
    const projectId = batch % 7 === 3 ? 'prj_b' : 'prj_a';
    const tally = new RollupTally(projectId, hasher, null, memo);
    const expected = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const cls = pick(['human', 'human', 'ai', 'bot'] as const);
      // The tally takes hours since the epoch; the sums and the memo keep epoch seconds.
      const hour = HOUR / 3600 + Math.floor(random() * 2);
      const path = pick(paths);
      const agentText = pick(agents);
      const userAgent = agentText === '' && random() < 0.5 ? undefined : agentText;
      const ipText = pick(addresses);
      const ip = ipText === '' && random() < 0.5 ? undefined : ipText;
      const sender = userAgent === undefined || random() < 0.2 ? undefined : pick(senders.get(userAgent)!);
      const kind = viewKind(cls, cls === 'human' ? '' : 'Agent', cls === 'human' ? '' : 'unverified');
      // Fresh strings each time, as JSON.parse gives them.
      const ipFresh = ip === undefined ? undefined : `${ip} `.slice(0, -1);
      tally.view(i, hour, kind, path, false, ipFresh, userAgent, undefined, path, 'html', null, sender);
      if (cls === 'bot' || (!ip && !userAgent)) continue;
      const agent = cls === 'ai' && ip ? '' : (userAgent ?? '');
      const id = expectedId(salt, projectId, cls, ip ?? '', agent);
      const key = keyOf(projectId, hour * 3600, cls, path, id);
      if (!committed.has(key)) expected.add(key);
    }
    const got = new Set<string>();
    for (const set of tally.sums.visitors.entries())
      for (const id of set.ids)
        got.add(keyOf(set.projectId, set.hourSeconds, set.visitorClass, set.path, id));
    assert.deepEqual([...got].sort(), [...expected].sort(), `batch ${batch}`);
    // A commit fails now and then: nothing of it is remembered, and its ids come again.
    if (batch % 5 === 2) continue;
    memo.committed(memo.unseen(tally.sums.visitors));
    for (const key of got) committed.add(key);
  }
});
