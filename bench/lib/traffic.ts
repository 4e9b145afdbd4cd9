// Synthetic docs-site traffic for the analytics benchmarks, generated event by event and counted
// into hourly rows the way ingestion would: Zipf-like page popularity (exponent 1), a daily cycle,
// 70% human / 20% AI / 10% non-AI bot views, AI crawlers that sweep the site more evenly than
// people read it, and real agent names from data/ai-agents.json with their usual shares.
import type { PageViewCount } from '../../src/modules/analytics/store/index.ts';
import { type Random, seededRandom, weightedPicker, zipfSampler } from './random.ts';

export interface TrafficShape {
  projectId: string;
  events: number;
  paths: number;
  /** First hour (epoch seconds, on the hour). */
  start: number;
  hours: number;
  seed: number;
}

const AI_AGENTS: readonly (readonly [string, number])[] = [
  ['GPTBot', 18],
  ['ClaudeBot', 14],
  ['ChatGPT-User', 12],
  ['OAI-SearchBot', 8],
  ['PerplexityBot', 8],
  ['Claude-User', 6],
  ['Bytespider', 6],
  ['meta-externalagent', 6],
  ['Amazonbot', 5],
  ['CCBot', 4],
  ['Google-CloudVertexBot', 3],
  ['Perplexity-User', 3],
  ['Claude Code', 3],
  ['markdown-client', 4],
];
const BOTS: readonly (readonly [string, number])[] = [
  ['googlebot', 40],
  ['bingbot', 20],
  ['ahrefsbot', 15],
  ['semrushbot', 10],
  ['uptimerobot', 10],
  ['no-user-agent', 5],
];

export function pathName(rank: number): string {
  return `/docs/section-${rank % 97}/page-${rank}`;
}

/** Views per hour: a daily cycle peaking mid-afternoon UTC, summing exactly to shape.events. */
function eventsPerHour(shape: TrafficShape): number[] {
  const weights = Array.from({ length: shape.hours }, (_, h) => {
    const hourOfDay = (shape.start / 3600 + h) % 24;
    return 1 + 0.5 * Math.sin(((hourOfDay - 9) / 24) * 2 * Math.PI);
  });
  const total = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((w / total) * shape.events));
  counts[counts.length - 1]! += shape.events - counts.reduce((a, b) => a + b, 0);
  return counts;
}

/** One hour at a time: the hour's events counted into rows, as an ingest group commit would. */
export interface TrafficHour {
  hour: number;
  events: number;
  rows: PageViewCount[];
}

export function* hourlyTraffic(shape: TrafficShape): Generator<TrafficHour> {
  const random: Random = seededRandom(shape.seed);
  const popular = zipfSampler(shape.paths, 1, random);
  const aiAgent = weightedPicker(AI_AGENTS, random);
  const bot = weightedPicker(BOTS, random);
  const perHour = eventsPerHour(shape);
  for (let h = 0; h < shape.hours; h++) {
    const hour = shape.start + h * 3600;
    const date = new Date(hour * 1000);
    const counts = new Map<string, PageViewCount>();
    const count = (
      path: string,
      trafficClass: PageViewCount['trafficClass'],
      agent: string,
      verification: string,
    ) => {
      const key = `${path}\0${trafficClass}\0${agent}\0${verification}`;
      const row = counts.get(key);
      if (row) row.views++;
      else
        counts.set(key, {
          projectId: shape.projectId,
          hour: date,
          path,
          trafficClass,
          agent,
          verification,
          views: 1,
        });
    };
    for (let i = 0; i < perHour[h]!; i++) {
      const r = random();
      if (r < 0.7) count(pathName(popular()), 'human', '', '');
      else if (r < 0.9) {
        // Half of AI views follow popularity (assistants fetching what people ask about), half
        // sweep the site evenly (training crawlers).
        const rank = random() < 0.5 ? popular() : Math.floor(random() * shape.paths);
        count(pathName(rank), 'ai', aiAgent(), random() < 0.5 ? 'verified' : 'unverified');
      } else count(pathName(popular()), 'bot', bot(), '');
    }
    yield { hour, events: perHour[h]!, rows: [...counts.values()] };
  }
}
