// The prompt of a run's job: the sources it follows first (so the pull request body, which
// quotes the prompt's beginning, cites them), then the automation's template filled from the
// run's events. A prompt over the jobs' limit because of a long {{event.diff}} gets a shorter
// diff (still cut between files, the note naming what was left out) rather than no job.
import { MAX_PROMPT_LENGTH } from '../../contract/index.ts';
import { capDiff } from '../../util/diff-cap.ts';
import type { JobCodeSource } from '../jobs/index.ts';
import type { AutomationRow, RunRow } from './queries.ts';
import { renderTemplate } from './template.ts';

/** Room kept for the note a shorter diff ends with. */
const NOTE_ROOM = 4_000;

const lengthOf = (text: string) => [...text].length;

export function runPrompt(
  automation: AutomationRow,
  run: RunRow,
  codeSource: JobCodeSource | null = null,
): string {
  const events = run.context.events;
  const prompt = render(automation, run.id, events, codeSource);
  const last = events.at(-1);
  const over = lengthOf(prompt) - MAX_PROMPT_LENGTH;
  if (over <= 0 || !last || typeof last.diff !== 'string' || last.diff === '') return prompt;
  const diff = capDiff(last.diff, false, Math.max(0, lengthOf(last.diff) - over - NOTE_ROOM));
  return render(automation, run.id, [...events.slice(0, -1), { ...last, diff }], codeSource);
}

function render(
  automation: AutomationRow,
  runId: string,
  events: Record<string, unknown>[],
  codeSource: JobCodeSource | null,
): string {
  const event = events.at(-1) ?? {};
  const body = renderTemplate(automation.prompt_template, {
    event,
    events,
    automation: { id: automation.id, name: automation.name },
    run: { id: runId },
  });
  const sources = events.filter((e) => typeof e.url === 'string' && e.url !== '');
  const code =
    codeSource === null
      ? ''
      : `\n\nThe code of ${codeSource.repository} at ${codeSource.commit.slice(0, 12)} can be read (not changed) with the code_list, code_read and code_search tools.`;
  if (sources.length === 0) return `${body}${code}`;
  const lines = sources.map((e) => {
    const what =
      e.number === null || e.number === undefined
        ? `commit ${String(e.mergedCommit).slice(0, 12)}`
        : `#${String(e.number)}`;
    return `- ${String(e.repository)} ${what}: ${String(e.title)} (${String(e.url)})`;
  });
  return `Automation "${automation.name}" follows these code changes:\n${lines.join('\n')}${code}\n\n${body}`;
}
