// The request batches bench/ingest.ts and bench/ingest-cpu.ts send: as a docs site's server
// sends them while it serves, with real user agents from the test table, query strings, some
// assets and redirects, times within the last minute. What a commit costs depends on how many
// distinct rollup keys (hour, page, class, agent, verification) a group holds, so the mix matters:
// - docs: 2,000 pages with Zipf popularity (page k drawn with weight 1/k); 70% of requests from
//   browsers, 20% from AI agents, 10% from other bots, each agent equally likely;
// - distinct: the worst case, 1,000 pages with a long tail and every user agent of the table
//   equally likely, so nearly every record is a rollup key of its own;
// - formats: docs, but AI agents read as agents do where a site serves Markdown: 40% of their
//   requests ask for the page's .md, 5% for /llms.txt (docs/analytics-formats.md: each of these
//   adds a format sum and a per-page format sum).
import { USER_AGENT_CASES } from '../../test/analytics/fixtures/user-agents.ts';
import { seededRandom, zipfSampler } from './random.ts';

export type IngestMix = 'docs' | 'distinct' | 'formats';

/** `batches` JSON arrays of `recordsPerBatch` records each, the same for a mix on every run. */
export function makeIngestBodies(mix: IngestMix, batches: number, recordsPerBatch: number): string[] {
  const random = seededRandom(42);
  const now = Date.now();
  const byClass = (cls: string) =>
    USER_AGENT_CASES.filter((c) => c.expected.class === cls).map((c) => c.userAgent);
  const browsers = byClass('human');
  const agents = byClass('ai');
  const bots = byClass('bot');
  const all = USER_AGENT_CASES.map((c) => c.userAgent);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const zipfPage = zipfSampler(2000, 1, random);
  const bodies: string[] = [];
  let n = 0;
  for (let b = 0; b < batches; b++) {
    const records = [];
    for (let i = 0; i < recordsPerBatch; i++, n++) {
      let page: number;
      let userAgent: string;
      let ai = false;
      if (mix === 'distinct') {
        page = Math.floor(1000 * random() ** 3);
        userAgent = pick(all);
      } else {
        page = zipfPage();
        const who = random();
        ai = who >= 0.7 && who < 0.9;
        userAgent = pick(who < 0.7 ? browsers : ai ? agents : bots);
      }
      const asset = random() < 0.06;
      // Drawn for the formats mix only, so the other mixes' records stay what they were.
      const read = mix === 'formats' && ai ? random() : 1;
      records.push({
        url: asset
          ? `https://docs.example.com/assets/app-${page}.js`
          : read < 0.05
            ? 'https://docs.example.com/llms.txt'
            : read < 0.45
              ? `https://docs.example.com/guide/page-${page}.md`
              : `https://docs.example.com/guide/page-${page}/?ref=${n % 5}`,
        timestamp: new Date(now - Math.floor(random() * 60_000)).toISOString(),
        userAgent,
        ip: `203.0.113.${n % 250}`,
        method: 'GET',
        status: random() < 0.03 ? 301 : 200,
        referrer: 'https://www.google.com/',
      });
    }
    bodies.push(JSON.stringify(records));
  }
  return bodies;
}
