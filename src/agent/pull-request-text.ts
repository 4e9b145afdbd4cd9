// What the agent's commit and pull request say: the agent's own title and summary, the prompt
// that asked for it, and a link back to the job. Built from the job only: no secret is in reach.
import type { StopReason } from './loop.ts';

const MAX_TITLE = 120;
const MAX_QUOTED_PROMPT = 3000;

// How each bound reads after "The agent stopped ".
const BOUND_WORDS: Partial<Record<StopReason, string>> = {
  max_steps: 'at its step bound',
  max_tokens: 'at its token bound',
  wall_time: 'at its time bound',
  stuck: 'after repeating a failing action',
  no_more_tool_calls: 'without calling finish',
  cost_cap: "at the job's cost cap",
  monthly_budget: "at the project's monthly budget",
};

export function pullRequestTitle(agentTitle: string | undefined, prompt: string): string {
  const raw = agentTitle?.trim() || firstLine(prompt) || 'Update documentation';
  return raw.length > MAX_TITLE ? `${raw.slice(0, MAX_TITLE - 1)}…` : raw;
}

/**
 * For a run that stopped before it finished and whose changes are published: says which bound
 * stopped it and that the pull request holds what it had done by then. Null for a finished run.
 */
export function stopNote(stoppedBy: StopReason): string | null {
  const words = BOUND_WORDS[stoppedBy];
  return words
    ? `The agent stopped ${words} (${stoppedBy}) before it finished; the pull request holds the changes it had made by then.`
    : null;
}

/** For a run that stopped at a bound before any file changed (the job fails, limit_reached). */
export function nothingChangedNote(stoppedBy: StopReason): string {
  const words = BOUND_WORDS[stoppedBy] ?? 'early';
  return `The agent stopped ${words} (${stoppedBy}) before it changed any file, so there is nothing to review.`;
}

export function pullRequestBody(input: {
  summary: string | undefined;
  stoppedBy: StopReason;
  prompts: string[];
  jobUrl: string;
  jobId: string;
  /** The docs checks' problems the change introduced, when it did (a Markdown section). */
  checksNote?: string;
}): string {
  const parts: string[] = [];
  parts.push(input.summary?.trim() || 'The agent did not write a summary.');
  const note = stopNote(input.stoppedBy);
  if (note) parts.push(`> [!NOTE]\n> ${note}`);
  if (input.checksNote) parts.push(input.checksNote);
  const asked = input.prompts.map((p, i) => {
    const label = input.prompts.length > 1 ? (i === 0 ? 'Request' : `Follow-up ${i}`) : 'Request';
    return `**${label}:**\n\n${quote(p)}`;
  });
  parts.push(asked.join('\n\n'));
  parts.push(`---\nOpened by docwright job [\`${input.jobId}\`](${input.jobUrl}).`);
  return parts.join('\n\n');
}

export function commitMessage(title: string, summary: string | undefined): string {
  return summary?.trim() ? `${title}\n\n${summary.trim()}` : title;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

function quote(text: string): string {
  const cut = text.length > MAX_QUOTED_PROMPT ? `${text.slice(0, MAX_QUOTED_PROMPT)}…` : text;
  return cut
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}
