// Runs the regression corpus (fixtures/agent-corpus.ts) through the classification pipeline and
// says what it found: AI strings counted as AI under their entry, browsers as human, other bots
// as bots, and which matchable entries have no string yet. Shared by the test and
// `npm run check:agents`.

import type { Agent } from '../../src/modules/analytics/classification/agent-list.ts';
import type { ClassificationContext } from '../../src/modules/analytics/classification/context.ts';
import { classifyRecord } from '../../src/modules/analytics/classification/pipeline.ts';
import type { CorpusCase } from './fixtures/agent-corpus.ts';

export interface GroupResult {
  total: number;
  passed: number;
}

export interface CorpusFailure {
  userAgent: string;
  expected: string;
  got: string;
}

export interface CorpusResult {
  ai: GroupResult;
  human: GroupResult;
  bot: GroupResult;
  failures: CorpusFailure[];
  /** Entries a user agent can name (tokens or products) that no corpus string names. */
  entriesWithoutString: string[];
}

function describe(view: { class: string; agent: string; category?: string | undefined }): string {
  if (view.class !== 'ai') return view.class;
  return `ai ${view.agent}${view.category ? ` (${view.category})` : ''}`;
}

export function matchable(agent: Agent): boolean {
  return agent.tokens.length > 0 || (agent.products?.length ?? 0) > 0;
}

export async function checkAgentCorpus(
  context: ClassificationContext,
  corpus: readonly CorpusCase[],
): Promise<CorpusResult> {
  const result: CorpusResult = {
    ai: { total: 0, passed: 0 },
    human: { total: 0, passed: 0 },
    bot: { total: 0, passed: 0 },
    failures: [],
    entriesWithoutString: [],
  };
  const named = new Set<string>();
  for (const entry of corpus) {
    const outcome = await classifyRecord({ path: '/guide', userAgent: entry.userAgent }, context);
    const group = result[entry.expected.class];
    group.total++;
    const got = 'drop' in outcome ? `dropped (${outcome.drop})` : describe(outcome);
    const passed =
      !('drop' in outcome) &&
      outcome.class === entry.expected.class &&
      // Bot names are isbot's business; here only the class of a non-AI string matters.
      (entry.expected.class !== 'ai' || outcome.agent === entry.expected.agent) &&
      (entry.expected.category === undefined || outcome.category === entry.expected.category);
    if (passed) group.passed++;
    else result.failures.push({ userAgent: entry.userAgent, expected: describe(entry.expected), got });
    if (entry.expected.class === 'ai') named.add(entry.expected.agent);
  }
  result.entriesWithoutString = context.agents
    .filter((agent) => matchable(agent) && !named.has(agent.name))
    .map((agent) => agent.name);
  return result;
}
