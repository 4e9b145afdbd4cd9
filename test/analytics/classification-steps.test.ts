import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prefersMarkdown } from '../../src/modules/analytics/classification/accept-header.ts';
import { isAssetPath } from '../../src/modules/analytics/classification/asset-paths.ts';
import { normalisePath } from '../../src/modules/analytics/classification/normalise-path.ts';
import { decodePercentEscapes } from '../../src/modules/analytics/classification/percent-decode.ts';
import {
  classifyBatch,
  classifyRecord,
  PIPELINE,
} from '../../src/modules/analytics/classification/pipeline.ts';
import { assetStep } from '../../src/modules/analytics/classification/steps/asset.ts';
import { methodStep } from '../../src/modules/analytics/classification/steps/method.ts';
import { pathStep } from '../../src/modules/analytics/classification/steps/path.ts';
import { statusStep } from '../../src/modules/analytics/classification/steps/status.ts';
import type { PipelineState } from '../../src/modules/analytics/classification/steps/step.ts';
import { userAgentStep } from '../../src/modules/analytics/classification/steps/user-agent.ts';
import { verificationStep } from '../../src/modules/analytics/classification/steps/verification.ts';
import type { RequestRecord } from '../../src/modules/analytics/classification/types.ts';
import { DROP_REASONS, isDropped } from '../../src/modules/analytics/classification/types.ts';
import { testContext } from './fixtures/context.ts';

const context = testContext();
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.103 Safari/537.36';
const state = (record: RequestRecord, extra: Partial<PipelineState> = {}): PipelineState => ({
  record,
  atSeconds: 1_790_000_000,
  ...extra,
});

describe('pipeline', () => {
  test('runs the six named steps in order', () => {
    assert.deepEqual(
      PIPELINE.map((step) => step.name),
      ['method', 'status', 'path', 'asset', 'user_agent', 'verification'],
    );
  });

  test('a plain browser view passes every step and counts as human', async () => {
    const outcome = await classifyRecord({ url: 'https://docs.example/guide/', userAgent: CHROME }, context);
    assert.deepEqual(outcome, {
      path: '/guide',
      markdown: false,
      class: 'human',
      agent: '',
      verification: '',
      evidence: { rule: 'human_default' },
    });
  });
});

describe('drop reasons (one test each)', () => {
  const cases: [string, RequestRecord, string][] = [
    ['method_not_counted', { path: '/guide', method: 'POST', userAgent: CHROME }, 'method'],
    ['status_not_counted', { path: '/guide', status: 404, userAgent: CHROME }, 'status'],
    ['path_missing', { userAgent: CHROME }, 'path'],
    ['path_invalid', { url: 'ftp://docs.example/guide', userAgent: CHROME }, 'path'],
    ['path_too_long', { path: `/${'a'.repeat(2048)}`, userAgent: CHROME }, 'path'],
    ['asset', { path: '/assets/app.js?v=3', userAgent: CHROME }, 'asset'],
  ];
  test('the cases cover every declared reason', () => {
    assert.deepEqual(cases.map(([reason]) => reason).sort(), [...DROP_REASONS].sort());
  });
  for (const [reason, record, step] of cases) {
    test(reason, async () => {
      assert.deepEqual(await classifyRecord(record, context), { drop: reason, step });
    });
  }
});

describe('method step', () => {
  test('keeps GET, HEAD (any case) and a missing method', () => {
    for (const method of ['GET', 'head', undefined]) {
      assert.equal(methodStep.run(state({ path: '/', method }), context), undefined);
    }
  });
  test('drops other methods', () => {
    for (const method of ['POST', 'PUT', 'OPTIONS', 'DELETE']) {
      assert.deepEqual(methodStep.run(state({ path: '/', method }), context), {
        drop: 'method_not_counted',
        step: 'method',
      });
    }
  });
});

describe('status step', () => {
  test('keeps 2xx, 304 and a missing status', () => {
    for (const status of [200, 203, 299, 304, undefined]) {
      assert.equal(statusStep.run(state({ path: '/', status }), context), undefined);
    }
  });
  test('drops redirects, client and server errors', () => {
    for (const status of [101, 301, 302, 400, 404, 500, 503]) {
      assert.deepEqual(statusStep.run(state({ path: '/', status }), context), {
        drop: 'status_not_counted',
        step: 'status',
      });
    }
  });
});

describe('path step', () => {
  test('prefers path over url and reports the Markdown flag', () => {
    assert.deepEqual(pathStep.run(state({ path: '/guide.md', url: 'https://x/other' }), context), {
      path: '/guide',
      markdown: true,
    });
  });

  const table: [string, string, boolean][] = [
    ['https://docs.example/guide?utm=1#intro', '/guide', false],
    ['/guide/', '/guide', false],
    ['/', '/', false],
    ['', '', false],
    ['guide', '/guide', false],
    ['//guide///setup//', '/guide/setup', false],
    ['/guide/index.html', '/guide', false],
    ['/index.html', '/', false],
    ['/guide/INDEX.HTM', '/guide', false],
    ['/guide.md', '/guide', true],
    ['/guide/index.md', '/guide', true],
    ['/guide.MD?raw=1', '/guide', true],
    ['/.md', '/.md', false],
    ['/a/./b/../c', '/a/c', false],
    ['/caf%C3%A9', '/café', false],
    ['/a%2Fb', '/a%2Fb', false],
    ['/a%2fb', '/a%2Fb', false],
    ['/bad%FF%FE', '/bad%FF%FE', false],
    ['/100%', '/100%', false],
    ['/%zz', '/%zz', false],
    ['/x%3Fy%23z', '/x%3Fy%23z', false],
    ['/index', '/index', false],
    ['https://docs.example', '/', false],
  ];
  for (const [input, path, markdown] of table) {
    if (input === '') continue;
    test(`${JSON.stringify(input)} → ${path}${markdown ? ' (markdown)' : ''}`, () => {
      assert.deepEqual(normalisePath(input), { ok: true, path, markdown });
    });
  }

  test('missing, invalid and too long inputs are refused with their reason', () => {
    assert.deepEqual(normalisePath(undefined), { ok: false, reason: 'path_missing' });
    assert.deepEqual(normalisePath('   '), { ok: false, reason: 'path_missing' });
    assert.deepEqual(normalisePath('http://[::1'), { ok: false, reason: 'path_invalid' });
    assert.deepEqual(normalisePath('mailto://x'), { ok: false, reason: 'path_invalid' });
    assert.deepEqual(normalisePath(`/${'a'.repeat(2047)}`).ok, true);
    assert.deepEqual(normalisePath(`/${'a'.repeat(2048)}`), { ok: false, reason: 'path_too_long' });
    assert.deepEqual(normalisePath(`/${'a'.repeat(100_000)}`), { ok: false, reason: 'path_too_long' });
  });

  test('percent-decoding keeps structural and invalid escapes', () => {
    assert.equal(decodePercentEscapes('/%E6%97%A5%E6%9C%AC'), '/日本');
    assert.equal(decodePercentEscapes('/a%20b'), '/a%20b');
    assert.equal(decodePercentEscapes('/a%2525'), '/a%2525');
    assert.equal(decodePercentEscapes('/%C3'), '/%C3');
    assert.equal(decodePercentEscapes('/%41%42'), '/AB');
  });
});

describe('asset step', () => {
  test('drops files by extension, case-insensitively', () => {
    for (const path of [
      '/app.css',
      '/app.js',
      '/x.mjs',
      '/app.js.map',
      '/logo.PNG',
      '/f.woff2',
      '/feed.xml',
      '/robots.txt',
      '/favicon.ico',
    ]) {
      assert.equal(isAssetPath(path), true, path);
      assert.deepEqual(assetStep.run(state({}, { path }), context), { drop: 'asset', step: 'asset' });
    }
  });
  test('keeps pages, including .html, .txt and .pdf and dotted directory names', () => {
    for (const path of [
      '/',
      '/guide',
      '/page.html',
      '/llms.txt',
      '/manual.pdf',
      '/v1.2/guide',
      '/.well-known',
    ]) {
      assert.equal(isAssetPath(path), false, path);
      assert.equal(assetStep.run(state({}, { path }), context), undefined);
    }
  });
});

describe('user_agent step', () => {
  test('produces the view from the user agent, using the path state', () => {
    const output = userAgentStep.run(
      state({ userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)' }, { path: '/guide', markdown: false }),
      context,
    ) as Partial<PipelineState>;
    assert.equal(output.view?.class, 'ai');
    assert.equal(output.view?.agent, 'CCBot');
    assert.equal(output.view?.verification, 'unverified');
    assert.equal(output.agentEntry?.name, 'CCBot');
  });
});

describe('verification step', () => {
  test('verifies an agent claim by its published IP ranges', () => {
    const before = userAgentStep.run(
      state({ userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)', ip: '18.97.9.170' }, { path: '/' }),
      context,
    ) as Partial<PipelineState>;
    const output = verificationStep.run(
      state({ userAgent: 'CCBot/2.0', ip: '18.97.9.170' }, { path: '/', ...before }),
      context,
    ) as Partial<PipelineState>;
    assert.equal(output.view?.verification, 'verified');
    assert.equal(output.view?.evidence.ip, 'in_ranges');
  });
  test('leaves humans alone', () => {
    const before = userAgentStep.run(
      state({ userAgent: CHROME, ip: '18.97.9.170' }, { path: '/' }),
      context,
    ) as Partial<PipelineState>;
    const output = verificationStep.run(
      state({ userAgent: CHROME, ip: '18.97.9.170' }, before),
      context,
    ) as Partial<PipelineState>;
    assert.equal(output.view?.class, 'human');
    assert.equal(output.view?.verification, '');
    assert.equal(output.view?.evidence.ip, undefined);
  });
});

describe('Accept header', () => {
  const cases: [string | undefined, boolean][] = [
    ['text/markdown', true],
    ['text/markdown, text/html;q=0.9', true],
    ['text/markdown, text/html, */*', true], // Claude Code's WebFetch (equal weight, Markdown first)
    ['text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1', true], // OpenCode's "text" format
    ['text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1', true],
    ['text/markdown, */*;q=0.8', true],
    ['text/html, text/markdown', false],
    ['text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['text/markdown;q=0', false],
    ['*/*', false],
    ['', false],
    [undefined, false],
  ];
  for (const [accept, expected] of cases) {
    test(`${JSON.stringify(accept)} → ${expected}`, () => assert.equal(prefersMarkdown(accept), expected));
  }
});

describe('classifyBatch', () => {
  test('counts drops per reason and keeps the index of every view', async () => {
    const result = await classifyBatch(
      [
        { path: '/a', userAgent: CHROME },
        { path: '/a', method: 'POST' },
        { path: '/a.css' },
        { path: '/b', status: 500 },
        { path: '/c', userAgent: 'GPTBot/1.3' },
        { path: '/d', method: 'DELETE' },
      ],
      context,
    );
    assert.deepEqual(
      result.views.map(({ index, view }) => [index, view.path, view.class]),
      [
        [0, '/a', 'human'],
        [4, '/c', 'ai'],
      ],
    );
    assert.deepEqual(result.dropped, {
      method_not_counted: 2,
      status_not_counted: 1,
      path_missing: 0,
      path_invalid: 0,
      path_too_long: 0,
      asset: 1,
    });
  });

  test('fields of the wrong type are treated as absent instead of throwing', async () => {
    const odd = { path: 5, userAgent: 7, accept: ['text/markdown'], ip: 1 } as unknown as RequestRecord;
    assert.deepEqual(await classifyRecord(odd, context), { drop: 'path_missing', step: 'path' });
    const outcome = await classifyRecord({ ...odd, path: '/x' } as RequestRecord, context);
    assert.ok(!isDropped(outcome));
    assert.equal(outcome.agent, 'no-user-agent');
  });

  test('isDropped tells drops from views', async () => {
    assert.equal(isDropped(await classifyRecord({ path: '/a', method: 'PUT' }, context)), true);
    assert.equal(isDropped(await classifyRecord({ path: '/a' }, context)), false);
  });
});
