// Prints the AI-agent regression corpus result: AI strings counted as AI, browsers as human,
// other bots in neither, and the entries with no string. With --robots FILE, also the keys of
// an ai.robots.txt robots.json that the curated list neither lists nor deliberately excludes.
// Exit status 1 when anything is off. Usage: npm run check:agents [-- --robots robots.json]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadAgentListDocument } from '../src/modules/analytics/classification/agent-list.ts';
import { createClassificationContext } from '../src/modules/analytics/classification/context.ts';
import { curatedNames, uncoveredKeys } from '../src/modules/analytics/classification/robots-json.ts';
import { checkAgentCorpus } from '../test/analytics/agent-corpus-check.ts';
import { AGENT_CORPUS } from '../test/analytics/fixtures/agent-corpus.ts';

const { values } = parseArgs({ options: { robots: { type: 'string' } } });
const context = createClassificationContext({ webBotAuth: false });
const result = await checkAgentCorpus(context, AGENT_CORPUS);
let ok = result.failures.length === 0 && result.entriesWithoutString.length === 0;

const line = (label: string, group: { total: number; passed: number }) =>
  `${label.padEnd(34)} ${group.passed}/${group.total}`;
console.log(`agent list: ${context.agents.length} entries`);
console.log(line('AI strings counted as AI:', result.ai));
console.log(line('browsers counted as human:', result.human));
console.log(line('other bots counted as bot:', result.bot));
for (const failure of result.failures) {
  console.log(`FAIL ${failure.userAgent}\n     expected ${failure.expected}, got ${failure.got}`);
}
if (result.entriesWithoutString.length > 0)
  console.log(`entries without a corpus string: ${result.entriesWithoutString.join(', ')}`);

if (values.robots !== undefined) {
  const document = JSON.parse(readFileSync(values.robots, 'utf8')) as Record<string, unknown>;
  const curated = loadAgentListDocument();
  const missing = uncoveredKeys(document, curatedNames(curated.agents, curated.notAi));
  console.log(
    `robots.json keys covered: ${Object.keys(document).length - missing.length}/${Object.keys(document).length}`,
  );
  if (missing.length > 0) {
    ok = false;
    console.log(`not covered: ${missing.join(', ')}`);
  }
}
console.log(ok ? 'OK' : 'FAILED');
process.exitCode = ok ? 0 : 1;
