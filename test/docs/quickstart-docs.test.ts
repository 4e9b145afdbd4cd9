// What a newcomer copies from the README and the getting-started page must run as written in a
// fresh clone: tools beyond git and npm are named, the checkout's command is ./bin/docwright (a
// bare `docwright` is not on PATH there), and examples print a screenful, not a year of days.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const PAGES = ['README.md', 'docs/getting-started.md'];
const read = (page: string) => readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');

/** The lines inside the page's fenced code blocks. */
function codeLines(text: string): string[] {
  const lines: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inside = !inside;
    else if (inside) lines.push(line);
  }
  return lines;
}

test('a page whose examples use jq says to install it', () => {
  for (const page of PAGES) {
    const text = read(page);
    if (!codeLines(text).some((line) => /\bjq\b/.test(line))) continue;
    assert.match(text, /`jq`[^.]*install jq/s, `${page} uses jq without saying to install it`);
  }
});

test('commands in the examples run from the checkout: ./bin/docwright, not a bare docwright', () => {
  const bare =
    /(^|[|;&(]\s*|#.*:\s*)docwright (serve|migrate|worker|projects|keys|import-logs|agents|jobs|views)\b/;
  for (const page of PAGES) {
    const found = codeLines(read(page)).filter((line) => bare.test(line));
    assert.deepEqual(found, [], `${page}: use ./bin/docwright`);
  }
});

test('time-series examples ask for a short range', () => {
  const DAY = 86_400_000;
  for (const page of PAGES) {
    for (const match of read(page).matchAll(/timeseries\?([^"' ]+)/g)) {
      const query = new URLSearchParams(match[1]!);
      const from = Date.parse(query.get('dateFrom') ?? '');
      const to = Date.parse(query.get('dateTo') ?? '');
      if (Number.isNaN(from) || Number.isNaN(to)) continue; // open bounds follow the data
      const buckets = (to - from) / (query.get('interval') === 'hour' ? DAY / 24 : DAY);
      assert.ok(buckets <= 31, `${page}: ${match[0]} lists ${buckets} buckets`);
    }
  }
});
