// Unit tests of the log-import readers: the combined format, JSON lines with mappings and presets,
// times in every form logs write them, the line splitter and the format choice.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseCombinedLine, unescapeLogField } from '../../src/modules/analytics/import/combined-format.ts';
import { FormatError, lineParserFactory, parseMapping } from '../../src/modules/analytics/import/formats.ts';
import { IDENTITY_MAP, parseJsonLine } from '../../src/modules/analytics/import/json-format.ts';
import { readLineBatches } from '../../src/modules/analytics/import/line-reader.ts';
import type { ParsedLine } from '../../src/modules/analytics/import/parsed-line.ts';
import { PRESETS } from '../../src/modules/analytics/import/presets.ts';
import { parseClfTime, parseIsoTime, parseTimeValue } from '../../src/modules/analytics/import/timestamps.ts';

function record(parsed: ParsedLine) {
  assert.ok(!('malformed' in parsed), `expected a record, got ${JSON.stringify(parsed)}`);
  return parsed;
}

describe('combined log format', () => {
  test('an nginx combined line: address, time with offset, request, status, referrer, user agent', () => {
    const { record: r, at } = record(
      parseCombinedLine(
        '203.0.113.9 - frank [10/Oct/2000:13:55:36 -0700] "GET /guide?x=1 HTTP/1.1" 200 2326 "https://ex.com/" "Mozilla/5.0 (X11)"',
      ),
    );
    assert.equal(at, Date.UTC(2000, 9, 10, 20, 55, 36));
    assert.deepEqual(r, {
      method: 'GET',
      path: '/guide?x=1',
      timestamp: new Date(at),
      ip: '203.0.113.9',
      status: 200,
      referrer: 'https://ex.com/',
      userAgent: 'Mozilla/5.0 (X11)',
    });
  });

  test('the common log format (no referrer, no user agent) and "-" fields', () => {
    const { record: r } = record(
      parseCombinedLine('::1 - - [01/Jan/2024:00:00:00 +0000] "HEAD / HTTP/1.0" - -'),
    );
    assert.deepEqual(r, { method: 'HEAD', path: '/', timestamp: new Date(Date.UTC(2024, 0, 1)), ip: '::1' });
    const { record: dashes } = record(
      parseCombinedLine('1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET /a HTTP/2.0" 304 0 "-" "-"'),
    );
    assert.equal(dashes.referrer, undefined);
    assert.equal(dashes.userAgent, undefined);
    assert.equal(dashes.status, 304);
  });

  test('fields nginx configurations add after the user agent are ignored', () => {
    const { record: r } = record(
      parseCombinedLine(
        '1.2.3.4 - - [01/Jan/2024:10:00:00 +0100] "GET /a HTTP/1.1" 200 5 "-" "curl/8.0" "198.51.100.1" rt=0.003',
      ),
    );
    assert.equal(r.userAgent, 'curl/8.0');
    assert.equal(r.ip, '1.2.3.4');
  });

  test('escaped quotes and bytes inside quoted fields (Apache \\" and nginx \\x22, UTF-8 as \\xHH)', () => {
    const { record: r } = record(
      parseCombinedLine(
        '1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET /caf\\xC3\\xA9 HTTP/1.1" 200 1 "-" "Bot \\"quoted\\" \\x22x\\x22"',
      ),
    );
    assert.equal(r.path, '/café');
    assert.equal(r.userAgent, 'Bot "quoted" "x"');
    assert.equal(unescapeLogField('a\\\\b'), 'a\\b');
  });

  test('a request line that is not one (a TLS probe) keeps the line but no page', () => {
    const { record: r } = record(
      parseCombinedLine('1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "\\x16\\x03\\x01" 400 0 "-" "-"'),
    );
    assert.equal(r.path, undefined);
    assert.equal(r.status, 400);
  });

  test('lines that are not in the format, or have an impossible time, are malformed with a reason', () => {
    for (const line of [
      'garbage',
      '{"json": true}',
      '1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] GET / HTTP/1.1 200 1', // unquoted request
    ]) {
      const parsed = parseCombinedLine(line);
      assert.ok('malformed' in parsed, line);
      assert.match(parsed.malformed, /combined|common/);
    }
    for (const time of ['31/Feb/2024:00:00:00 +0000', '01/Jan/2024:00:00:00', '01/Jan/2024:25:00:00 +0000']) {
      const badTime = parseCombinedLine(`1.2.3.4 - - [${time}] "GET / HTTP/1.1" 200 1`);
      assert.ok('malformed' in badTime, time);
      assert.match(badTime.malformed, /unreadable time/, time);
    }
  });
});

describe('times', () => {
  test('access-log times with offsets, fractions, and impossible dates refused', () => {
    assert.equal(parseClfTime('10/Oct/2000:13:55:36 -0700'), Date.UTC(2000, 9, 10, 20, 55, 36));
    assert.equal(parseClfTime('10/Oct/2000:13:55:36 +0530'), Date.UTC(2000, 9, 10, 8, 25, 36));
    assert.equal(parseClfTime('10/Oct/2000:13:55:36.250 +0000'), Date.UTC(2000, 9, 10, 13, 55, 36, 250));
    assert.equal(parseClfTime('31/Apr/2024:00:00:00 +0000'), null);
    assert.equal(parseClfTime('10/Foo/2000:13:55:36 +0000'), null);
  });

  test('ISO 8601 with and without offset (none means UTC), and CloudFront "date time"', () => {
    assert.equal(parseIsoTime('2024-05-01T09:15:00Z'), Date.UTC(2024, 4, 1, 9, 15));
    assert.equal(parseIsoTime('2024-05-01T09:15:00.123+02:00'), Date.UTC(2024, 4, 1, 7, 15, 0, 123));
    assert.equal(parseIsoTime('2024-05-01 09:15:00'), Date.UTC(2024, 4, 1, 9, 15));
    assert.equal(parseIsoTime('2024-02-30T00:00:00Z'), null);
  });

  test('epoch numbers in seconds, milliseconds, microseconds and nanoseconds read the same instant', () => {
    const ms = Date.UTC(2024, 4, 1, 9, 15, 30, 500);
    for (const value of [ms / 1000, ms, ms * 1000, ms * 1e6, String(ms * 1e6), String(ms / 1000)])
      assert.equal(parseTimeValue(value), ms, String(value));
    assert.equal(parseTimeValue(-5), null);
    assert.equal(parseTimeValue({}), null);
  });

  test('property: any instant from 1974 to 5000 survives every epoch unit', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1974, 0, 1), max: Date.UTC(5000, 0, 1) }), (ms) => {
        assert.equal(parseTimeValue(ms), ms);
        assert.equal(parseTimeValue(ms * 1000), ms);
        assert.equal(parseTimeValue(Math.floor(ms / 1000)), Math.floor(ms / 1000) * 1000);
      }),
    );
  });
});

describe('JSON lines', () => {
  test('without a mapping, the request-record names are read (the ingest API NDJSON imports as is)', () => {
    const { record: r, at } = record(
      parseJsonLine(
        '{"path":"/a","timestamp":"2024-05-01T09:00:00Z","userAgent":"UA","ip":"1.2.3.4","accept":"text/markdown","referrer":"r","method":"GET","status":"200"}',
        IDENTITY_MAP,
      ),
    );
    assert.equal(at, Date.UTC(2024, 4, 1, 9));
    assert.deepEqual(
      { ...r, timestamp: undefined },
      {
        path: '/a',
        method: 'GET',
        status: 200,
        userAgent: 'UA',
        ip: '1.2.3.4',
        accept: 'text/markdown',
        referrer: 'r',
        timestamp: undefined,
      },
    );
  });

  test('the Cloudflare preset, nanosecond timestamps', () => {
    const map = { ...IDENTITY_MAP, ...PRESETS.cloudflare!.map };
    const { record: r, at } = record(
      parseJsonLine(
        JSON.stringify({
          ClientIP: '203.0.113.1',
          ClientRequestURI: '/docs/start?ref=x',
          ClientRequestMethod: 'GET',
          ClientRequestUserAgent: 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
          EdgeResponseStatus: 200,
          EdgeStartTimestamp: 1714554000123456000, // nanoseconds, as Cloudflare's default writes
        }),
        map,
      ),
    );
    assert.equal(r.path, '/docs/start?ref=x');
    assert.equal(r.ip, '203.0.113.1');
    assert.equal(at, Date.UTC(2024, 4, 1, 9, 0, 0, 123));
  });

  test('the Vercel preset: nested keys and a user agent given as an array', () => {
    const map = { ...IDENTITY_MAP, ...PRESETS.vercel!.map };
    const { record: r } = record(
      parseJsonLine(
        JSON.stringify({
          id: '1',
          source: 'edge',
          timestamp: 1,
          proxy: {
            timestamp: Date.UTC(2024, 4, 1),
            method: 'GET',
            path: '/p',
            userAgent: ['PerplexityBot/1.0'],
            statusCode: 200,
            clientIp: '1.1.1.1',
          },
        }),
        map,
      ),
    );
    assert.equal(r.userAgent, 'PerplexityBot/1.0');
    assert.equal(r.path, '/p');
    assert.equal(r.status, 200);
    // A Vercel build log has no request: no page, no time needed, the pipeline drops it.
    const build = record(
      parseJsonLine('{"id":"2","source":"build","message":"compiling","timestamp":5}', map),
    );
    assert.equal(build.record.path, undefined);
  });

  test('the CloudFront preset: date+time joined, percent-encoded user agent decoded', () => {
    const map = { ...IDENTITY_MAP, ...PRESETS.cloudfront!.map };
    const { record: r, at } = record(
      parseJsonLine(
        JSON.stringify({
          date: '2024-05-01',
          time: '09:15:00',
          'c-ip': '1.2.3.4',
          'cs-method': 'GET',
          'cs-uri-stem': '/g',
          'sc-status': '200',
          'cs(User-Agent)': 'Mozilla/5.0%20(compatible;%20GPTBot/1.1)',
          'cs(Referer)': '-',
        }),
        map,
      ),
    );
    assert.equal(at, Date.UTC(2024, 4, 1, 9, 15));
    assert.equal(r.userAgent, 'Mozilla/5.0 (compatible; GPTBot/1.1)');
    assert.equal(r.referrer, undefined);
  });

  test('malformed: not JSON, not an object, a page without a time, an unreadable status', () => {
    const cases: [string, RegExp][] = [
      ['{"path":', /not valid JSON/],
      ['[1,2]', /not a JSON object/],
      ['{"path":"/a"}', /no time in "timestamp"/],
      ['{"path":"/a","timestamp":"yesterday"}', /unreadable time/],
      ['{"path":"/a","timestamp":1714554000,"status":"OK"}', /unreadable status/],
    ];
    for (const [line, reason] of cases) {
      const parsed = parseJsonLine(line, IDENTITY_MAP);
      assert.ok('malformed' in parsed, line);
      assert.match(parsed.malformed, reason, line);
    }
  });
});

describe('format choice', () => {
  test('--map parsing names unknown fields and bad pairs', () => {
    assert.deepEqual(parseMapping('userAgent=cs(User-Agent)'), ['userAgent', 'cs(User-Agent)']);
    assert.throws(() => parseMapping('agent=x'), /unknown field "agent"/);
    assert.throws(() => parseMapping('path'), /field=key/);
    assert.throws(() => parseMapping('path='), /field=key/);
  });

  test('auto-detection per log from its first non-blank line; --preset/--map imply JSON', () => {
    const auto = lineParserFactory({});
    const json = auto();
    assert.ok(!('malformed' in json('{"path":"/a","timestamp":1714554000}')));
    assert.ok('malformed' in json('1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1'));
    const combined = auto();
    assert.ok(!('malformed' in combined('1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1')));
    const mapped = lineParserFactory({ map: { path: 'uri' } })();
    const parsed = record(mapped('{"uri":"/m","timestamp":1714554000}'));
    assert.equal(parsed.record.path, '/m');
    assert.throws(() => lineParserFactory({ format: 'combined', preset: 'vercel' }), FormatError);
    assert.throws(() => lineParserFactory({ preset: 'nope' }), /unknown preset/);
  });
});

describe('line splitter', () => {
  async function lines(chunks: string[], max?: number) {
    const out: { text: string; length: number; terminated: boolean }[] = [];
    for await (const batch of readLineBatches(Readable.from(chunks.map((c) => Buffer.from(c))), max))
      for (const l of batch)
        out.push({ text: l.bytes.toString(), length: l.length, terminated: l.terminated });
    return out;
  }

  test('lines across chunk boundaries, an unterminated last line, CRLF kept for the reader', async () => {
    assert.deepEqual(await lines(['ab', 'c\nd', 'e\n\nf\r\n', 'tail']), [
      { text: 'abc', length: 3, terminated: true },
      { text: 'de', length: 2, terminated: true },
      { text: '', length: 0, terminated: true },
      { text: 'f\r', length: 2, terminated: true },
      { text: 'tail', length: 4, terminated: false },
    ]);
  });

  test('a line longer than the limit is cut, its full length kept', async () => {
    assert.deepEqual(await lines(['12345', '6789\nok\n'], 4), [
      { text: '1234', length: 9, terminated: true },
      { text: 'ok', length: 2, terminated: true },
    ]);
    assert.deepEqual(await lines(['123456789\n'], 4), [{ text: '1234', length: 9, terminated: true }]);
  });

  test('property: splitting anywhere gives the same lines as String.split', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.stringMatching(/^[a-z\n]{0,12}$/), { maxLength: 8 }), async (parts) => {
        const text = parts.join('');
        const got = (await lines(parts.filter((p) => p !== ''))).map((l) => l.text);
        const expected = text.split('\n');
        if (expected.at(-1) === '') expected.pop();
        assert.deepEqual(got, expected);
      }),
    );
  });
});
