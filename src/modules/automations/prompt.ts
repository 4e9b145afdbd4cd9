// The prompt of a run's job: the sources it follows first (so the pull request body, which
// quotes the prompt's beginning, cites them), then the automation's template filled from the
// run's events.
import type { JobCodeSource } from '../jobs/index.ts';
import type { AutomationRow, RunRow } from './queries.ts';
import { renderTemplate } from './template.ts';

export function runPrompt(
  automation: AutomationRow,
  run: RunRow,
  codeSource: JobCodeSource | null = null,
): string {
  const events = run.context.events;
  const event = events.at(-1) ?? {};
  const body = renderTemplate(automation.prompt_template, {
    event,
    events,
    automation: { id: automation.id, name: automation.name },
    run: { id: run.id },
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
