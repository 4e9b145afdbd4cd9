// Text for people from the client commands' results: jobs, job lists, and the analytics exports.
// Scripts use --json instead; nothing here is meant to be parsed.

import { knownJobEventType } from '../../contract/index.ts';
import type {
  Job,
  JobEvent,
  MergedAgentReport,
  MergedMcpToolReport,
  MergedViewsReport,
  MergedVisitorReport,
} from '../../sdk/index.ts';
import { countOf } from '../../util/plural.ts';
import { table } from './output.ts';

export function renderJob(job: Job): string {
  const lines = [`${job.id}  ${job.status}`, `  prompt:        ${oneLine(job.prompt, 200)}`];
  lines.push(`  repository:    ${job.source.repository} (branch ${job.source.ref})`);
  lines.push(`  model:         ${job.model || '(none configured)'}`);
  lines.push(`  pull request:  ${pullRequestText(job)}`);
  if (job.branch) lines.push(`  branch:        ${job.branch}`);
  if (job.summary) lines.push(`  summary:       ${oneLine(job.summary, 500)}`);
  if (job.error) lines.push(`  error:         ${job.error.code}: ${job.error.message}`);
  if (job.usage) {
    lines.push(
      `  usage:         ${countOf(job.usage.steps, 'step')}, ${job.usage.inputTokens} input + ${job.usage.outputTokens} output tokens`,
    );
  }
  lines.push(`  created:       ${job.createdAt}`);
  if (job.completedAt) lines.push(`  ended:         ${job.completedAt}`);
  if (job.archivedAt) lines.push(`  archived:      ${job.archivedAt}`);
  return lines.join('\n');
}

function pullRequestText(job: Job): string {
  if (job.prLink) return job.prLink;
  if (job.status === 'active') return '(not yet)';
  if (job.status === 'completed') return '(none: no files changed)';
  return '(none)';
}

export function renderJobList(jobs: Job[], more: boolean): string {
  if (jobs.length === 0)
    return 'No jobs. Start one with: docwright jobs create "Fix the typo in the install guide"';
  const text = table(
    ['ID', 'STATUS', 'CREATED', 'PULL REQUEST', 'PROMPT'],
    jobs.map((j) => [j.id, j.status, j.createdAt, j.prLink ?? '-', oneLine(j.prompt, 60)]),
  );
  return more ? `${text}\n(more jobs: raise --limit, or --all)` : text;
}

/** The last line of a --wait: what became of the job. */
export function renderOutcome(job: Job): string {
  if (job.status === 'failed')
    return `Job ${job.id} failed (${job.error?.code ?? 'unknown'}): ${job.error?.message ?? ''}`;
  if (job.status === 'archived')
    return `Job ${job.id} is archived.${job.prLink ? ` Pull request: ${job.prLink}` : ''}`;
  if (job.prLink) return `Job ${job.id} completed. Pull request: ${job.prLink}`;
  return `Job ${job.id} completed without changing any file (no pull request).`;
}

/** A short account of one job event for the progress line. */
export function describeEvent(event: JobEvent): string {
  const d = event.data as Record<string, unknown>;
  const text = (key: string) =>
    typeof d[key] === 'string' || typeof d[key] === 'number' ? String(d[key]) : '';
  // Narrowed to the contract's list, so a case naming no event type fails to compile.
  switch (knownJobEventType(event.type)) {
    case 'created':
      return 'queued';
    case 'started':
      return `started${text('attempt') && text('attempt') !== '1' ? ` (attempt ${text('attempt')})` : ''}`;
    case 'tool_call':
      return `${text('tool') || 'tool'} ${text('path')}`.trim();
    case 'step':
      return `step ${text('step') || text('index')}`.trim();
    case 'pull_request':
      return `pull request ${text('url')}`.trim();
    case 'failed':
      return `failed: ${text('code')}`;
    case 'message':
      return 'follow-up received';
    default:
      return event.type.replaceAll('_', ' ');
  }
}

const count = (n: number) => String(n);

/** A table whose numeric columns (and their headers) are right-aligned. */
function numericTable(headers: string[], rows: string[][], numeric: number[]): string {
  const width = (c: number) => Math.max(headers[c]!.length, ...rows.map((r) => r[c]!.length));
  const widths = headers.map((_, c) => (numeric.includes(c) ? width(c) : 0));
  const align = (cells: string[]) =>
    cells.map((cell, c) => (numeric.includes(c) ? cell.padStart(widths[c]!) : cell));
  return table(align(headers), rows.map(align));
}

function rangeText(range: { from: string | null; to: string | null }): string {
  return `${range.from ?? 'the beginning'} to ${range.to ?? 'now'}`;
}

/** `format` names the filter the report was asked with, if any. */
export function renderViews(report: MergedViewsReport, format?: string): string {
  const { totals } = report;
  const served = format === undefined ? '' : ` served as ${format}`;
  const head = `Page views${served} from ${rangeText(report.range)}: ${totals.total} (human ${totals.human}, AI ${totals.ai}) on ${countOf(report.views.length, 'page')}`;
  if (report.views.length === 0) return `${head}\nNo page views in this range.`;
  const headers = ['PATH', 'HUMAN', 'AI', 'TOTAL'];
  const rows = report.views.map((v) => [v.path, count(v.human), count(v.ai), count(v.total)]);
  return `${head}\n\n${numericTable(headers, rows, [1, 2, 3])}`;
}

export function renderVisitors(report: MergedVisitorReport): string {
  const { totals } = report;
  const head = `Distinct visitors (approximate) from ${rangeText(report.range)}: ${totals.total} (human ${totals.human}, AI ${totals.ai}) on ${countOf(report.visitors.length, 'page')}`;
  if (report.visitors.length === 0) return `${head}\nNo visitors in this range.`;
  const headers = ['PATH', 'HUMAN', 'AI', 'TOTAL'];
  const rows = report.visitors.map((v) => [v.path, count(v.human), count(v.ai), count(v.total)]);
  return `${head}\n\n${numericTable(headers, rows, [1, 2, 3])}`;
}

/** `format` names the filter the report was asked with, if any. */
export function renderAgents(report: MergedAgentReport, format?: string): string {
  const { totals } = report;
  const served = format === undefined ? '' : ` served as ${format}`;
  const head = `AI-agent views${served} from ${rangeText(report.range)}: ${totals.total} (verified ${totals.verified}, unverified ${totals.unverified}) by ${countOf(report.agents.length, 'agent')}`;
  const split = totals.formats
    ? `\nBy format: html ${count(totals.formats.html)}, markdown ${count(totals.formats.markdown)}, llms ${count(totals.formats.llms)}, mcp ${count(totals.formats.mcp)}`
    : '';
  if (report.agents.length === 0) return `${head}${split}\nNo AI-agent views in this range.`;
  const headers = ['AGENT', 'OPERATOR', 'CATEGORY', 'VERIFIED', 'UNVERIFIED', 'TOTAL'];
  const rows = report.agents.map((a) => [
    a.agent,
    a.operator ?? '-',
    a.category ?? '-',
    count(a.verified),
    count(a.unverified),
    count(a.total),
  ]);
  if (totals.formats) {
    headers.push('HTML', 'MARKDOWN', 'LLMS', 'MCP');
    report.agents.forEach((a, i) => {
      const f = a.formats ?? { html: 0, markdown: 0, llms: 0, mcp: 0 };
      rows[i]!.push(count(f.html), count(f.markdown), count(f.llms), count(f.mcp));
    });
    return `${head}${split}\n\n${numericTable(headers, rows, [3, 4, 5, 6, 7, 8, 9])}`;
  }
  return `${head}\n\n${numericTable(headers, rows, [3, 4, 5])}`;
}

export function renderMcpTools(report: MergedMcpToolReport): string {
  const head = `MCP calls from ${rangeText(report.range)}: ${report.totals.calls} in ${countOf(report.calls.length, 'row')} (tool, method, client)`;
  if (report.calls.length === 0) return `${head}\nNo MCP calls in this range.`;
  const headers = ['TOOL', 'METHOD', 'CLIENT', 'VERSION', 'CALLS'];
  const rows = report.calls.map((c) => [
    c.tool || '-',
    c.method,
    c.clientName || '-',
    c.clientVersion || '-',
    count(c.calls),
  ]);
  return `${head}\n\n${numericTable(headers, rows, [4])}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
