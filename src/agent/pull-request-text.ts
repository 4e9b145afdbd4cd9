// What the agent's commit and pull request say: the agent's own title and summary, the prompt
// that asked for it, and a link back to the job. Built from the job only: no secret is in reach.
import type { StopReason } from './loop.ts';

const MAX_TITLE = 120;
const MAX_QUOTED_PROMPT = 3000;

const BOUND_WORDS: Partial<Record<StopReason, string>> = {
  max_steps: 'its step bound',
  max_tokens: 'its token bound',
  wall_time: 'its time bound',
  stuck: 'repeating a failing action',
  no_more_tool_calls: 'without calling finish',
};

export function pullRequestTitle(agentTitle: string | undefined, prompt: string): string {
  const raw = agentTitle?.trim() || firstLine(prompt) || 'Update documentation';
  return raw.length > MAX_TITLE ? `${raw.slice(0, MAX_TITLE - 1)}…` : raw;
}

export function stopNote(stoppedBy: StopReason): string | null {
  const words = BOUND_WORDS[stoppedBy];
  return words
    ? `The agent stopped at ${words} (${stoppedBy}) before it finished; this is the work it had done.`
    : null;
}

export function pullRequestBody(input: {
  summary: string | undefined;
  stoppedBy: StopReason;
  prompts: string[];
  jobUrl: string;
  jobId: string;
}): string {
  const parts: string[] = [];
  parts.push(input.summary?.trim() || 'The agent did not write a summary.');
  const note = stopNote(input.stoppedBy);
  if (note) parts.push(`> [!NOTE]\n> ${note}`);
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
