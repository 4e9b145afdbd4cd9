// Access logs written for the import tests, each line with what it must count as, decided here by
// hand (not by the classifier), so the tests compare the import against an independent answer.
import { gzipSync } from 'node:zlib';

export const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
export const CLAUDEBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
export const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** Inside 132.196.86.0/24, one of GPTBot's published ranges (data/ai-agents.json). */
export const GPTBOT_IP = '132.196.86.7';

export type Expect =
  | { path: string; class: 'human' | 'ai' | 'bot'; agent?: string; verification?: string }
  | { drop: string };

export interface Hit {
  ip: string;
  at: number;
  method: string;
  target: string;
  status: number;
  ua: string;
  expect: Expect;
}

/** A line of a test log: a request, or a line that is not one. */
export type Entry = Hit | { malformed: true } | { blank: true };

const H = (hour: number, minute: number) => Date.UTC(2025, 2, 14, hour, minute, 7);

/** 20 lines over two hours: every class, every kind of drop, two malformed lines and a blank one. */
export function sampleHits(): Entry[] {
  return [
    {
      ip: '203.0.113.1',
      at: H(9, 1),
      method: 'GET',
      target: '/guide',
      status: 200,
      ua: CHROME,
      expect: { path: '/guide', class: 'human' },
    },
    {
      ip: '203.0.113.2',
      at: H(9, 2),
      method: 'GET',
      target: '/guide/?utm=x',
      status: 200,
      ua: CHROME,
      expect: { path: '/guide', class: 'human' },
    },
    {
      ip: '203.0.113.3',
      at: H(9, 3),
      method: 'GET',
      target: '/guide/index.html',
      status: 304,
      ua: CHROME,
      expect: { path: '/guide', class: 'human' },
    },
    {
      ip: '203.0.113.1',
      at: H(9, 4),
      method: 'GET',
      target: '/app.js',
      status: 200,
      ua: CHROME,
      expect: { drop: 'asset' },
    },
    {
      ip: '203.0.113.1',
      at: H(9, 5),
      method: 'POST',
      target: '/search',
      status: 200,
      ua: CHROME,
      expect: { drop: 'method_not_counted' },
    },
    { malformed: true },
    {
      ip: GPTBOT_IP,
      at: H(9, 10),
      method: 'GET',
      target: '/guide',
      status: 200,
      ua: GPTBOT,
      expect: { path: '/guide', class: 'ai', agent: 'GPTBot', verification: 'verified' },
    },
    {
      ip: '198.51.100.7',
      at: H(9, 11),
      method: 'GET',
      target: '/guide',
      status: 200,
      ua: GPTBOT,
      expect: { path: '/guide', class: 'ai', agent: 'GPTBot', verification: 'unverified' },
    },
    {
      ip: '198.51.100.8',
      at: H(9, 12),
      method: 'GET',
      target: '/api/ref.md',
      status: 200,
      ua: CLAUDEBOT,
      expect: { path: '/api/ref', class: 'ai', agent: 'ClaudeBot', verification: 'unverified' },
    },
    {
      ip: '66.249.66.1',
      at: H(9, 20),
      method: 'GET',
      target: '/start',
      status: 200,
      ua: GOOGLEBOT,
      expect: { path: '/start', class: 'bot' },
    },
    {
      ip: '66.249.66.1',
      at: H(9, 21),
      method: 'GET',
      target: '/gone',
      status: 404,
      ua: GOOGLEBOT,
      expect: { drop: 'status_not_counted' },
    },
    { blank: true },
    {
      ip: '203.0.113.4',
      at: H(10, 0),
      method: 'GET',
      target: '/start',
      status: 200,
      ua: CHROME,
      expect: { path: '/start', class: 'human' },
    },
    {
      ip: '203.0.113.5',
      at: H(10, 30),
      method: 'HEAD',
      target: '/start',
      status: 200,
      ua: CHROME,
      expect: { path: '/start', class: 'human' },
    },
    {
      ip: '203.0.113.5',
      at: H(10, 31),
      method: 'GET',
      target: '/img/logo.PNG',
      status: 200,
      ua: CHROME,
      expect: { drop: 'asset' },
    },
    {
      ip: GPTBOT_IP,
      at: H(10, 40),
      method: 'GET',
      target: '/start',
      status: 200,
      ua: GPTBOT,
      expect: { path: '/start', class: 'ai', agent: 'GPTBot', verification: 'verified' },
    },
    { malformed: true },
    {
      ip: '203.0.113.6',
      at: H(10, 50),
      method: 'GET',
      target: '/caf%C3%A9',
      status: 200,
      ua: CHROME,
      expect: { path: '/café', class: 'human' },
    },
    {
      ip: '203.0.113.7',
      at: H(10, 55),
      method: 'GET',
      target: '/guide',
      status: 200,
      ua: CHROME,
      expect: { path: '/guide', class: 'human' },
    },
    {
      ip: '203.0.113.8',
      at: H(10, 59),
      method: 'GET',
      target: '/start',
      status: 500,
      ua: CHROME,
      expect: { drop: 'status_not_counted' },
    },
  ];
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The time as nginx writes it, in a +01:00 zone so offsets are exercised. */
function clfTime(ms: number): string {
  const d = new Date(ms + 3_600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0100`;
}

export function combinedLine(entry: Entry, index: number): string {
  if ('blank' in entry) return '';
  if ('malformed' in entry) return `this is line ${index + 1} and not a log line`;
  return `${entry.ip} - - [${clfTime(entry.at)}] "${entry.method} ${entry.target} HTTP/1.1" ${entry.status} 512 "-" "${entry.ua}"`;
}

/** The same requests as Cloudflare-style JSON lines (field names to be given with --map). */
export function cloudflareLine(entry: Entry, index: number): string {
  if ('blank' in entry) return '';
  if ('malformed' in entry) return `{"broken": ${index}`;
  return JSON.stringify({
    ClientIP: entry.ip,
    ClientRequestMethod: entry.method,
    ClientRequestURI: entry.target,
    ClientRequestUserAgent: entry.ua,
    EdgeResponseStatus: entry.status,
    EdgeStartTimestamp: new Date(entry.at).toISOString(),
    RayID: `ray${index}`,
  });
}

export function logText(entries: Entry[], line = combinedLine): string {
  return `${entries.map(line).join('\n')}\n`;
}

export function gzip(text: string): Buffer {
  return gzipSync(Buffer.from(text));
}

export interface ExpectedRow {
  hour: string;
  path: string;
  trafficClass: string;
  agent?: string;
  verification?: string;
  views: number;
}

/** What the rollups must hold for these lines: counted by hand from each line's expectation. */
export function expectedCounts(entries: Entry[]) {
  const rows = new Map<string, ExpectedRow>();
  const dropped: Record<string, number> = {};
  const malformedLines: number[] = [];
  let blank = 0;
  for (const [index, entry] of entries.entries()) {
    if ('blank' in entry) {
      blank++;
      continue;
    }
    if ('malformed' in entry) {
      malformedLines.push(index + 1);
      continue;
    }
    const e = entry.expect;
    if ('drop' in e) {
      dropped[e.drop] = (dropped[e.drop] ?? 0) + 1;
      continue;
    }
    const hour = new Date(Math.floor(entry.at / 3_600_000) * 3_600_000).toISOString();
    const key = [hour, e.path, e.class, e.agent ?? '', e.verification ?? ''].join('|');
    const row = rows.get(key) ?? { hour, path: e.path, trafficClass: e.class, views: 0 };
    if (e.agent) row.agent = e.agent;
    if (e.verification) row.verification = e.verification;
    row.views++;
    rows.set(key, row);
  }
  const byClass = { human: 0, ai: 0, bot: 0 };
  for (const r of rows.values()) byClass[r.trafficClass as keyof typeof byClass] += r.views;
  return { rows: [...rows.values()], dropped, malformedLines, blank, byClass };
}
