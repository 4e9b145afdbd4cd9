// Property: the ingest fast path (common-record.ts, with its caches) decides every record as the
// general path does (validateRecord, then the classification pipeline), and ingestBatch answers
// and submits exactly what the code before the fast path did: the same accepted count, drops per
// reason, rejections (index, code, message), and views summed per rollup key (compared in the
// rollup writers' order).
// Records are random and mostly odd on purpose: wrong types, NUL, timestamps in every accepted
// and refused form, URLs with queries, fragments, escapes, dot segments, odd hosts, every user
// agent of the fixture table, Markdown signals, IPs in and out of published ranges, and signed
// records whose verification waits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { ClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { classifyBatch, classifyRecord } from '../../src/modules/analytics/classification/pipeline.ts';
import type { RequestRecord, WebBotAuthEvidence } from '../../src/modules/analytics/classification/types.ts';
import { userAgentProfilesOf } from '../../src/modules/analytics/classification/user-agent-profiles.ts';
import { viewFormatOf } from '../../src/modules/analytics/classification/view-format.ts';
import { WebBotAuthVerifier } from '../../src/modules/analytics/classification/web-bot-auth/verifier.ts';
import {
  commonTimestampHour,
  parseCommonTimestampMillis,
  parseDateBound,
} from '../../src/modules/analytics/date-bounds.ts';
import { ingestCommonRecord } from '../../src/modules/analytics/ingest/common-record.ts';
import {
  type IngestDependencies,
  type IngestWriter,
  ingestBatch,
} from '../../src/modules/analytics/ingest/ingest-batch.ts';
import { MalformedLine, validateRecord } from '../../src/modules/analytics/ingest/record-validation.ts';
import {
  type FormatCount,
  type FormatPageCount,
  FormatSums,
} from '../../src/modules/analytics/store/format-sums.ts';
import {
  CommittedVisitors,
  type PageViewCount,
  type ViewSums,
} from '../../src/modules/analytics/store/index.ts';
import type { KeyedCount } from '../../src/modules/analytics/store/keyed-count.ts';
import { aggregate } from '../../src/modules/analytics/store/rollups.ts';
import { testContext } from './fixtures/context.ts';
import { USER_AGENT_CASES } from './fixtures/user-agents.ts';

const NOW = Date.parse('2026-11-01T12:34:56.789Z');
const HOUR = 3_600_000;
const EXTRA_LIST = new URL('./fixtures/robots-extra.json', import.meta.url).pathname;

/** Signed records: the verdict depends on the Signature-Agent header, and arrives later. */
function slowVerifier(): WebBotAuthVerifier {
  const verifier = Object.create(WebBotAuthVerifier.prototype) as WebBotAuthVerifier;
  verifier.verify = (record) => {
    const agent = record.headers?.['signature-agent'] ?? '';
    const evidence: WebBotAuthEvidence = agent.includes('chatgpt')
      ? { outcome: 'valid', signatureAgent: 'https://chatgpt.com' }
      : { outcome: 'directory_unavailable', signatureAgent: 'https://unknown.example' };
    return new Promise((resolve) => setTimeout(() => resolve(evidence), agent.length % 3));
  };
  return verifier;
}

const contexts: [string, () => ClassificationContext][] = [
  ['curated list', () => testContext()],
  ['curated and extra lists', () => testContext({ extraLists: [EXTRA_LIST] })],
  ['Web Bot Auth verification', () => testContext({ webBotAuth: slowVerifier() })],
];

// ---- generators -------------------------------------------------------------------------------

const pick = <T>(...values: T[]) => fc.constantFrom(...values);

const pagePath = pick(
  '/',
  '/guide',
  '/guide/',
  '/Guide/Install',
  '/guide/index.html',
  '/guide/INDEX.HTM',
  '/guide/index',
  '/guide/index.md',
  '/guide.md',
  '/guide.MD',
  '/.md',
  '/x/.md',
  '//guide//install//',
  '/a/./b',
  '/a/../b',
  '/a//../b',
  '/a/%2e%2e/b',
  '/a/.%2E/b',
  '/caf%C3%A9',
  '/caf%c3%a9',
  '/café',
  '/%ff%FE',
  '/a%2Fb',
  '/a%00b',
  '/a%',
  '/a b',
  '/a\\b',
  '/a\tb',
  '/assets/app.js',
  '/img/logo.PNG',
  '/robots.txt',
  '/favicon.ico',
  '/.well-known/security.txt',
  '/.env',
  '/llms.txt',
  '/paper.pdf',
  '/feed.xml',
  `/${'a'.repeat(2050)}`,
  `/${'b'.repeat(600)}`,
  '/.well-known/x',
  'guide/relative',
  '',
);
const suffix = pick(
  '',
  '',
  '?ref=nav',
  '?a=1&b=2',
  '#top',
  '?x#y',
  '#x?y',
  '?',
  '#',
  '?utm=%00',
  ' ',
  '\u00a0',
);
const prefix = pick(
  '',
  '',
  '',
  'https://docs.example.com',
  'http://docs.example.com',
  'HTTPS://Docs.Example.COM',
  'https://docs.example.com:8443',
  'https://user:pw@docs.example.com',
  'https://999.1.1.1',
  'https://1.2.3',
  'https://xn--bad',
  'https://',
  'https:///',
  'ftp://docs.example.com',
  'mailto:someone',
  ' ',
  '  https://docs.example.com',
);
const target = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(prefix, pagePath, suffix).map(([p, path, s]) => p + path + s) },
  { weight: 1, arbitrary: pick('   ', '?only', '#only', 'x'.repeat(17000), 'https://docs.example.com/a\0b') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

function iso(at: number): string {
  return new Date(at).toISOString();
}
const instant = fc.oneof(
  fc.integer({ min: NOW - 30 * 24 * HOUR, max: NOW }),
  fc.integer({ min: NOW, max: NOW + 10 * 60_000 }), // around the 5-minute limit
  pick(
    Date.parse('0001-01-01T00:00:00Z'),
    Date.parse('1969-12-31T23:59:59.999Z'),
    Date.parse('9998-12-31T23:00:00Z'),
  ),
);
const timestamp = fc.oneof(
  { weight: 6, arbitrary: instant.map(iso) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(instant, fc.integer({ min: 0, max: 9 }), pick('.', ','), pick('T', 't'), pick('Z', 'z'))
      .map(([at, digits, separator, t, z]) => {
        const [date, time] = iso(at).slice(0, 19).split('T');
        const fraction =
          digits === 0
            ? ''
            : separator +
              String(at % 1000)
                .padStart(3, '0')
                .padEnd(digits, '7')
                .slice(0, digits);
        return `${date}${t}${time}${fraction}${z}`;
      }),
  },
  {
    weight: 4,
    arbitrary: pick(
      '2026-11-01',
      '2026-11-01T12:00',
      '2026-11-01T12:00Z',
      '2026-11-01T14:00:00+02:00',
      '2026-11-01T14:00:00 02:00',
      '2026-11-01T10:00:00-0200',
      '2026-11-01T12:00:00.123456789012Z',
      '2026-02-29T00:00:00Z',
      '2024-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-11-01T24:00:00Z',
      '2026-11-01T23:60:00Z',
      '2026-11-01T23:59:60Z',
      '0000-12-31T23:00:00Z',
      '9999-12-31T00:00:00Z',
      '9999-12-31T00:00:00.001Z',
      '9999-12-30T00:00:00Z',
      '2026-11-01T12:00:00.Z',
      '2026-11-01 12:00:00Z',
      '2026-1-01T12:00:00Z',
      '２０２６-11-01T12:00:00Z',
      '2026-11-01T12:00:00Z ',
      '2026-11-01T12:00:00\0Z',
      'soon',
      '',
    ),
  },
);

const userAgent = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...USER_AGENT_CASES.map((c) => c.userAgent)) },
  {
    weight: 2,
    arbitrary: pick(
      '',
      '-',
      '  ',
      'curl/8.4.0',
      'python-requests/2.31',
      'ExampleAssistant-User/1.0',
      'Mozilla/5.0 (compatible; ExampleTrainer/2.1)',
      'ExampleSearch',
      'Googlebot/2.1 (+http://www.google.com/bot.html)',
      'Cursor/0.42 (agent)',
      'GPTBot\0/1.0',
    ),
  },
);
// Agents that publish address ranges (data/ai-agents.json), and addresses in, near and out of them.
const rangedAgent = pick(
  'GPTBot/1.2',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
  'Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)',
  'Perplexity-User/1.0',
  'MistralAI-User/1.0',
);
const rangeAddress = pick(
  '132.196.86.77',
  '132.196.87.77',
  '132.196.86.255',
  '::ffff:132.196.86.1',
  '::FFFF:132.196.86.1',
  ' 132.196.86.77',
  '2600:1f28:365:80ff::1',
  '2600:1f28:365:9000::1',
  '2600:1f28:365:8000::',
  '18.97.14.91',
  '18.97.14.92',
  '3.41.188.33',
  '44.208.221.197',
  '44.208.221.198',
  '20.240.160.161',
  '20.240.160.162',
);
const ip = pick(
  '132.196.86.77',
  '::ffff:132.196.86.1',
  '203.0.113.9',
  '2600:1f28:365:80ff::1',
  '2600:1f28:365:9000::1',
  '18.97.14.91',
  '18.97.14.92',
  ' 132.196.86.77 ',
  'not-an-ip',
  '',
  '1.2.3.4\0',
);
const accept = pick(
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'text/markdown',
  'text/markdown, text/html;q=0.9',
  'text/html, text/markdown',
  'text/markdown;q=0.5, text/html',
  'TEXT/X-MARKDOWN',
  'text/markdown;q=0',
  '*/*',
  'text/*, text/markdown',
  '',
  'text/markdown\0',
);
const method = pick('GET', 'GET', 'HEAD', 'get', ' head ', 'POST', 'OPTIONS', '', 'GET\0');
const status = pick(200, 200, 204, 299, 304, 301, 404, 500, 100, 599, 99, 600, 200.5, -0);
const headers = pick<Record<string, unknown>>(
  {},
  { 'x-request-id': 'abc' },
  {
    signature: 'sig1=:AAAA:',
    'signature-input': 'sig1=("@authority")',
    'signature-agent': '"https://chatgpt.com"',
  },
  { Signature: 'sig1=:AAAA:', 'Signature-Input': 'sig1=()', 'Signature-Agent': '"https://other.example"' },
  { signature: 'sig1=:AAAA:', 'signature-input': 'sig1=()', 'signature-agent': '"https://unknown.example"' },
  { 'x-bad': 5 },
);
const commonPath = fc.tuple(pagePath, pick('', '?ref=nav', '#top')).map(([path, query]) => path + query);
const commonUrl = commonPath.map(
  (path) => `https://docs.example.com${path.startsWith('/') ? '' : '/'}${path}`,
);
/** A value of the wrong type for any field. */
const wrongType = pick<unknown>(5, true, null, ['GET'], { a: 1 }, '200');

/** A field leaning to what senders send: mostly `common`, sometimes `odd`, rarely a wrong type. */
const fieldValue = <T>(odd: fc.Arbitrary<T>, common: fc.Arbitrary<T> = odd) =>
  fc.oneof(
    { weight: 24, arbitrary: common },
    { weight: 6, arbitrary: odd },
    { weight: 1, arbitrary: wrongType },
  );

/** The value once in `odds` draws, else null. */
const rarely = <T>(value: fc.Arbitrary<T>, odds: number) =>
  fc.oneof({ weight: odds - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: value });

const objectRecord = fc
  .tuple(
    fc.record(
      {
        url: fieldValue(target, commonUrl),
        path: fieldValue(target, commonPath),
        timestamp: fieldValue(timestamp, instant.map(iso)),
        userAgent: fieldValue(userAgent, fc.oneof(userAgent, rangedAgent)),
        ip: fieldValue(ip, fc.oneof(pick('203.0.113.7'), rangeAddress)),
        accept: fieldValue(accept, pick('text/html,application/xhtml+xml,*/*;q=0.8', 'text/markdown')),
        referrer: fieldValue(
          pick('x\0', ''),
          pick('https://www.google.com/', 'https://docs.example.com/guide'),
        ),
        method: fieldValue(method, pick('GET', 'HEAD')),
        status: fieldValue(status, pick(200, 304, 301)),
        extra: pick('ignored'),
      },
      { requiredKeys: [] },
    ),
    // Rarer: headers (signed or not), and a field named "constructor".
    rarely(fieldValue(headers), 6),
    rarely(pick('not a constructor'), 20),
  )
  .map(([record, extraHeaders, constructorField]) => ({
    ...record,
    ...(extraHeaders === null ? {} : { headers: extraHeaders }),
    ...(constructorField === null ? {} : { constructor: constructorField }),
  }));

const item = fc.oneof(
  { weight: 40, arbitrary: objectRecord.map((record) => JSON.parse(JSON.stringify(record)) as unknown) },
  { weight: 1, arbitrary: pick<unknown>(null, 5, 'a string', [], [{ path: '/x' }], true) },
  { weight: 1, arbitrary: fc.constant(new MalformedLine(3, 'Unexpected token')) },
);
const batch = fc.array(item, { minLength: 1, maxLength: 60 });

// ---- the general path, as ingestBatch ran before the fast path ----------------------------

interface Answer {
  result: unknown;
  rows: KeyedCount[] | null;
  /** The views in a format but html, per key and per page (the format as view-format.ts works it out). */
  formats: { views: FormatCount[]; pages: FormatPageCount[] } | null;
}

const PROJECTS = new Set(['prj_test']);

function formatsOf(sums: FormatSums): Answer['formats'] {
  return { views: sums.sortedViews(PROJECTS), pages: sums.sortedPages(PROJECTS) };
}

async function generalAnswer(items: readonly unknown[], context: ClassificationContext): Promise<Answer> {
  const rejected: { index: number; code: string; message: string }[] = [];
  const records: RequestRecord[] = [];
  const indexes: number[] = [];
  const hours: number[] = [];
  items.forEach((value, index) => {
    const checked = validateRecord(value, NOW);
    if (!checked.ok) rejected.push({ index, code: checked.code, message: checked.message });
    else {
      records.push(checked.record);
      indexes.push(index);
      hours.push(Math.floor(checked.atMs / HOUR) * HOUR);
    }
  });
  const { views, dropped } = await classifyBatch(records, context);
  const rows = new Map<string, PageViewCount>();
  const formats = new FormatSums();
  let accepted = 0;
  for (const { index, view } of views) {
    if (view.path.includes('\0') || view.agent.includes('\0')) {
      rejected.push({
        index: indexes[index]!,
        code: 'invalid_field',
        message: 'The record leads to a path or agent name holding the NUL character.',
      });
      continue;
    }
    accepted++;
    const format = viewFormatOf(view.path, view.markdown, records[index]!.accept);
    if (format !== 'html') {
      const hourSeconds = hours[index]! / 1000;
      formats.addView('prj_test', hourSeconds, format, view.class, view.agent, view.verification, 1);
      formats.addPage('prj_test', hourSeconds, format, view.class, view.path, 1);
    }
    const key = JSON.stringify([hours[index], view.class, view.agent, view.verification, view.path]);
    const row = rows.get(key);
    if (row) row.views++;
    else {
      rows.set(key, {
        projectId: 'prj_test',
        hour: new Date(hours[index]!),
        path: view.path,
        trafficClass: view.class,
        agent: view.agent,
        verification: view.verification,
        views: 1,
      });
    }
  }
  rejected.sort((a, b) => a.index - b.index);
  const counted = Object.fromEntries(Object.entries(dropped).filter(([, count]) => count > 0));
  return {
    result: { accepted, dropped: counted, rejected },
    // Submitted as sums: compared in the rollup writers' order, as the merge writes them.
    rows: accepted === 0 ? null : aggregate(rows.values()),
    formats: accepted === 0 ? null : formatsOf(formats),
  };
}

async function fastAnswer(items: readonly unknown[], context: ClassificationContext): Promise<Answer> {
  let rows: KeyedCount[] | null = null;
  let formats: Answer['formats'] = null;
  // No visitor salts in these deps: the staged-id check is never asked.
  const writer: IngestWriter = {
    committedVisitors: new CommittedVisitors(),
    async submit(submitted: ViewSums) {
      rows = submitted.sortedCounts();
      formats = formatsOf(submitted.formats);
      return 'committed' as const;
    },
  };
  const deps: IngestDependencies = { writer, classification: context, now: () => NOW };
  const { result } = await ingestBatch('prj_test', items, deps);
  return { result, rows, formats };
}

/** JSON text keeps key order, which deepEqual ignores: the answer's `dropped` is sent as is. */
const inOrder = (answer: Answer) => JSON.stringify(answer);

// ---- properties --------------------------------------------------------------------------

for (const [name, makeContext] of contexts) {
  describe(`ingest fast path, ${name}`, () => {
    test('each record it takes is decided as the general path decides it', async () => {
      const context = makeContext();
      const profiles = userAgentProfilesOf(context);
      // How the fast path's answers split, so the property cannot hold by the path never answering.
      const answered = { view: 0, drop: 0, declined: 0 };
      await fc.assert(
        fc.asyncProperty(item, async (value) => {
          const seen: unknown[] = [];
          const sink = {
            view: (
              _: number,
              hour: number,
              kind: { trafficClass: string; agent: string; verification: string },
              path: string,
            ) =>
              seen.push({
                hour,
                class: kind.trafficClass,
                agent: kind.agent,
                verification: kind.verification,
                path,
              }),
            drop: (reason: string) => seen.push({ drop: reason }),
          };
          const taken = ingestCommonRecord(value, 0, NOW, profiles, sink);
          const checked = validateRecord(value, NOW);
          if (!taken) {
            answered.declined++;
            assert.equal(seen.length, 0);
            return;
          }
          answered[seen.length === 1 && 'drop' in (seen[0] as object) ? 'drop' : 'view']++;
          assert.ok(checked.ok, 'the fast path took a record the checks refuse');
          const outcome = await classifyRecord(checked.record, context);
          const expected =
            'drop' in outcome
              ? { drop: outcome.drop }
              : {
                  // Hours since the epoch: the sink's hour (rollup-tally.ts).
                  hour: Math.floor(checked.atMs / HOUR),
                  class: outcome.class,
                  agent: outcome.agent,
                  verification: outcome.verification,
                  path: outcome.path,
                };
          assert.deepEqual(seen, [expected]);
        }),
        { numRuns: 4000 },
      );
      assert.ok(answered.view > 400 && answered.drop > 200, JSON.stringify(answered));
    });

    test('ingestBatch answers and submits as before the fast path', async () => {
      const context = makeContext();
      await fc.assert(
        fc.asyncProperty(batch, async (items) => {
          assert.equal(
            inOrder(await fastAnswer(items, context)),
            inOrder(await generalAnswer(items, context)),
          );
        }),
        { numRuns: 400 },
      );
    });
  });
}

describe('parseCommonTimestampMillis', () => {
  // Nearly-timestamps: the common form with characters swapped for others that can appear there.
  const nearTimestamp = fc
    .tuple(
      fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }),
      fc.integer({ min: 0, max: 10 }),
      pick(
        'Z',
        'z',
        '+02:00',
        '-05:30',
        '+00:00',
        '-00:00',
        '+23:59',
        '-23:59',
        '+24:00',
        '-12:60',
        '+0200',
        '+02',
        ' 02:00',
      ),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...'0123456789-:.,TtZz+ 9'.split(''))), { maxLength: 2 }),
    )
    .map(([at, digits, zone, swaps]) => {
      let text = `${iso(at).slice(0, 19)}${digits === 0 ? '' : `.${'123456789X'.slice(0, digits)}`}${zone}`;
      for (const [position, char] of swaps) {
        const i = position % text.length;
        text = text.slice(0, i) + char + text.slice(i + 1);
      }
      return text;
    });

  test('gives what parseDateBound gives, or NaN', () => {
    fc.assert(
      fc.property(fc.oneof(nearTimestamp, timestamp), (text) => {
        const fast = parseCommonTimestampMillis(text);
        const general = parseDateBound(text);
        if (Number.isNaN(fast)) return;
        assert.ok(general.ok, `${text} was read, but parseDateBound refuses it`);
        assert.equal(
          fast,
          general.instant.epochSeconds * 1000 + Math.floor(general.instant.nanos / 1e6),
          text,
        );
      }),
      { numRuns: 20_000 },
    );
  });

  test('reads the common forms, with any fraction, in every year it may', () => {
    const common = [
      '2026-11-01T12:34:56Z',
      '2026-11-01t12:34:56.7z',
      '0001-01-01T00:00:00,123456789Z',
      '2026-11-01T14:34:56.123456+02:00',
      '9998-12-31T23:59:59-23:59',
    ];
    for (const text of common) {
      assert.ok(!Number.isNaN(parseCommonTimestampMillis(text)), text);
    }
    assert.equal(
      parseCommonTimestampMillis('2026-11-01T12:34:56.7891Z'),
      Date.parse('2026-11-01T12:34:56.789Z'),
    );
    assert.equal(parseCommonTimestampMillis('2026-11-01T10:04:56-02:30'), Date.parse('2026-11-01T12:34:56Z'));
  });

  test('commonTimestampHour: the hour since the epoch of what it reads, NaN past the limit or else', () => {
    fc.assert(
      fc.property(fc.oneof(nearTimestamp, timestamp), fc.integer({ min: -2, max: 2 }), (text, ahead) => {
        const ms = parseCommonTimestampMillis(text);
        // A limit just before, at or after the timestamp (in milliseconds).
        const base = Number.isNaN(ms) ? NOW : ms + ahead - 1_000;
        const hour = commonTimestampHour(text, base, 1_000);
        if (Number.isNaN(ms) || ms > base + 1_000) assert.ok(Number.isNaN(hour), text);
        else assert.equal(hour, Math.floor(ms / HOUR), text);
      }),
      { numRuns: 10_000 },
    );
    // Hours before 1970 are negative, -1 included: no sentinel of the common answer.
    assert.equal(commonTimestampHour('1969-12-31T23:30:00Z', NOW, 0), -1);
    assert.equal(commonTimestampHour('2026-11-01T12:34:56.789Z', NOW, 0), Date.UTC(2026, 10, 1, 12) / HOUR);
    assert.ok(Number.isNaN(commonTimestampHour('2026-11-01', NOW, 0)));
  });
});

describe('ingest fast path coverage', () => {
  test('the common record does take the fast path', () => {
    const context = testContext();
    const record = {
      url: 'https://docs.example.com/guide/install?ref=nav',
      timestamp: '2026-11-01T12:00:00.123Z',
      userAgent: USER_AGENT_CASES[0]!.userAgent,
      ip: '203.0.113.7',
      method: 'GET',
      status: 200,
      referrer: 'https://www.google.com/',
    };
    const sink = { view: () => {}, drop: () => {} };
    assert.equal(ingestCommonRecord(record, 0, NOW, userAgentProfilesOf(context), sink), true);
  });
});
