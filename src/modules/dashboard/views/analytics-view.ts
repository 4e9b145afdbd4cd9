// The analytics page: the date range, totals, a stacked chart of human and AI views per day or
// hour (Chart.js, drawn by analytics-chart.js from the JSON below it, with the same numbers in a
// table for screen readers), the top pages and the AI agents, each paged like the API.
import {
  type AgentReport,
  type PageViewReport,
  type TimeseriesReport,
  VIEW_FORMATS,
  type ViewFormat,
} from '../../../contract/index.ts';
import type { AgentListVersion, UnrecognizedAgentReport } from '../../analytics/index.ts';
import type { Project } from '../../projects/index.ts';
import type { DayRange } from '../analytics-range.ts';
import { count } from '../format.ts';
import { html, jsonScript, type SafeHtml } from '../html.ts';
import { errorBox, type PageFrame, page } from './layout.ts';

/** The agent list classification uses: how many entries, and the synced version if any. */
export interface AgentListInfo {
  agents: number;
  synced: AgentListVersion | null;
}

export interface AnalyticsPage {
  range: DayRange;
  interval: 'day' | 'hour';
  error?: string | null;
  views: PageViewReport | null;
  agents: AgentReport | null;
  series: TimeseriesReport | null;
  pagesPage: number;
  pagesLimit: number;
  /** The top pages' format filter; null: every view. */
  pagesFormat?: ViewFormat | null;
  /** Every view's totals, when the top pages (views) are filtered by a format. */
  viewTotals?: PageViewReport['totals'] | null;
  agentsPage: number;
  agentsLimit: number;
  /** Null when the page was built without a classification context (the curated list). */
  agentList?: AgentListInfo | null;
  /** Approximate distinct visitors over the range (docs/analytics-visitors.md). */
  visitors?: { human: number; ai: number; total: number } | null;
  /** Human views referred by AI assistants over the range (docs/analytics-referrals.md). */
  referrals?: number | null;
  /** The top automated-looking user agents the list does not know (all time, not the range). */
  unrecognized?: UnrecognizedAgentReport | null;
  /** Calls to the docs site's MCP server over the range, and the most-called tools. */
  mcpCalls?: { calls: number; tools: { tool: string; calls: number }[] } | null;
}

const FORMAT_NAMES: Record<ViewFormat, string> = {
  html: 'Pages (HTML)',
  markdown: 'Markdown',
  llms: 'llms.txt',
  mcp: 'MCP calls',
};

/** The top pages' format choice: a GET form keeping the range (the pages start again at 1). */
function pagesFormatForm(base: string, data: AnalyticsPage): SafeHtml {
  const chosen = data.pagesFormat ?? null;
  return html`<form method="get" action="${base}" class="filter" data-auto-submit aria-label="Top pages format">
    <input type="hidden" name="from" value="${data.range.from}"><input type="hidden" name="to" value="${data.range.to}"><input type="hidden" name="interval" value="${data.interval}"><input type="hidden" name="apage" value="${data.agentsPage}">
    <label for="pages-format">Served as</label>
    <select id="pages-format" name="format">
      <option value=""${chosen === null ? html` selected` : ''}>Every format</option>
      ${VIEW_FORMATS.map((f) => html`<option value="${f}"${chosen === f ? html` selected` : ''}>${FORMAT_NAMES[f]}</option>`)}
    </select>
    <button type="submit" class="small">Filter</button>
  </form>`;
}

/** Where readers and agents read: the range's views per format, and the MCP tools called. */
function formatsSection(
  formats: TimeseriesReport['formats'],
  mcp: AnalyticsPage['mcpCalls'],
): SafeHtml | string {
  if (!formats) return '';
  const all = VIEW_FORMATS.reduce((sum, f) => sum + formats[f].total, 0);
  return html`<section aria-labelledby="formats-title" class="card">
  <h2 id="formats-title">Where they read</h2>
  <p class="muted small">Views by how they were served: pages, Markdown (<code>.md</code> or <code>Accept: text/markdown</code>), <code>llms.txt</code>, and calls to the docs site's MCP server.</p>
  <div class="table-wrap"><table id="view-formats">
    <thead><tr><th scope="col">Format</th><th scope="col" class="num">Human</th><th scope="col" class="num">AI</th><th scope="col" class="num">Total</th><th scope="col" class="num">Share</th></tr></thead>
    <tbody>${VIEW_FORMATS.map(
      (f) =>
        html`<tr data-format="${f}"><td>${FORMAT_NAMES[f]}</td><td class="num">${count(formats[f].human)}</td><td class="num">${count(formats[f].ai)}</td><td class="num">${count(formats[f].total)}</td><td class="num">${share(formats[f].total, all)}</td></tr>`,
    )}</tbody>
  </table></div>
  ${
    mcp && mcp.calls > 0
      ? html`<p class="small" id="mcp-tools">Most-called MCP tools: ${mcp.tools.map(
          (t, i) => html`${i > 0 ? ', ' : ''}<code>${t.tool || '(no tool)'}</code> ${count(t.calls)}`,
        )}.</p>`
      : ''
  }
</section>`;
}

function unrecognizedSection(report: UnrecognizedAgentReport | null | undefined): SafeHtml {
  return html`<section aria-labelledby="unrecognized-title">
  <h2 id="unrecognized-title">Unrecognized automated agents</h2>
  <p class="muted small">User agents that look automated but that no AI-agent list entry names, counted as bot or human, since first seen (not limited to the range above). An AI agent among them is counted as AI once a synced list names it (<code>docwright agents sync</code>).</p>
  ${
    report && report.agents.length > 0
      ? html`<div class="table-wrap"><table id="unrecognized-agents">
    <thead><tr><th scope="col">Product</th><th scope="col">Counted as</th><th scope="col">Why</th><th scope="col" class="num">Views</th><th scope="col">Last seen (UTC)</th><th scope="col">Example user agent</th></tr></thead>
    <tbody>${report.agents.map(
      (a) =>
        html`<tr><td>${a.product}</td><td>${a.class}</td><td>${a.reason.replaceAll('_', ' ')}</td><td class="num">${count(a.views)}</td><td>${a.lastSeen.slice(0, 16).replace('T', ' ')}</td><td class="break"><code>${a.example}</code></td></tr>`,
    )}</tbody>
  </table></div>`
      : html`<p class="muted">None so far.</p>`
  }
</section>`;
}

function agentListLine(list: AgentListInfo | null | undefined): SafeHtml | string {
  if (!list) return '';
  const synced = list.synced;
  return html`<p class="muted small" id="agent-list-version">Agent list: ${count(list.agents)} entries; ${
    synced === null
      ? 'curated list only, no synced version (docwright agents sync adds one).'
      : html`synced version ${synced.version} from <code>${synced.source}</code>, ${synced.syncedAt.slice(0, 16).replace('T', ' ')} UTC.`
  }</p>`;
}

function share(part: number, whole: number): string {
  return whole === 0 ? '—' : `${Math.round((part / whole) * 100)}%`;
}

export function analyticsPage(frame: PageFrame, project: Project, data: AnalyticsPage): SafeHtml {
  const base = `/app/projects/${project.id}/analytics`;
  const q = (extra: Record<string, string | number>) => {
    const params = new URLSearchParams({
      from: data.range.from,
      to: data.range.to,
      interval: data.interval,
      page: String(data.pagesPage),
      apage: String(data.agentsPage),
    });
    if (data.pagesFormat) params.set('format', data.pagesFormat);
    for (const [k, v] of Object.entries(extra)) params.set(k, String(v));
    return `${base}?${params.toString()}`;
  };
  const csv = (kind: 'views' | 'agents') =>
    `${base}/${kind}.csv?${new URLSearchParams({
      from: data.range.from,
      to: data.range.to,
      ...(kind === 'views' && data.pagesFormat ? { format: data.pagesFormat } : {}),
    }).toString()}`;
  const totals = data.viewTotals ?? data.views?.totals ?? { human: 0, ai: 0, total: 0 };
  const servedAs = data.pagesFormat
    ? html` <span class="muted small">served as ${FORMAT_NAMES[data.pagesFormat]}</span>`
    : '';
  const bots = data.series?.totals.bot ?? 0;
  const pagesOffset = (data.pagesPage - 1) * data.pagesLimit;
  return page(
    {
      ...frame,
      project: { id: project.id, name: project.name, tab: 'analytics' },
      scripts: ['vendor/chart.umd.min.js', 'analytics-chart.js'],
    },
    html`<h1>Analytics</h1>
<form method="get" action="${base}" class="range-form card" aria-label="Date range">
  <div class="field"><label for="range-from">From (UTC)</label><input id="range-from" name="from" type="date" value="${data.range.from}" required></div>
  <div class="field"><label for="range-to">To (UTC, included)</label><input id="range-to" name="to" type="date" value="${data.range.to}" required></div>
  <div class="field"><label for="range-interval">Chart by</label><select id="range-interval" name="interval">
    <option value="day"${data.interval === 'day' ? html` selected` : ''}>Day</option>
    <option value="hour"${data.interval === 'hour' ? html` selected` : ''}>Hour</option>
  </select></div>
  <button type="submit" class="primary">Show</button>
  <p class="presets">Quick ranges:
    <a href="${base}?preset=7">last 7 days</a>
    <a href="${base}?preset=30">last 30 days</a>
    <a href="${base}?preset=90">last 90 days</a>
  </p>
</form>
${errorBox(data.error)}
<p class="muted" id="range-text">Views from ${data.range.from} through ${data.range.to} (UTC), ${data.range.days} day${data.range.days === 1 ? '' : 's'}. The API's <code>dateTo</code> and the CLI's <code>--to</code> leave their day out: there this range is <code>dateFrom=${data.range.dateFrom}&amp;dateTo=${data.range.dateTo}</code>.</p>
<section aria-labelledby="totals-title">
  <h2 id="totals-title" class="visually-hidden">Totals</h2>
  <dl class="totals">
    <div class="total-card human"><dt>Human views</dt><dd id="total-human">${count(totals.human)}</dd></div>
    <div class="total-card ai"><dt>AI views</dt><dd id="total-ai">${count(totals.ai)}</dd><dd class="small muted">${share(totals.ai, totals.total)} of all</dd></div>
    <div class="total-card"><dt>Total views</dt><dd id="total-all">${count(totals.total)}</dd></div>
    <div class="total-card bots"><dt>Other bots <span class="small">(not counted)</span></dt><dd id="total-bots">${count(bots)}</dd></div>
    ${
      data.visitors
        ? html`<div class="total-card"><dt>Distinct visitors <span class="small">(approximate)</span></dt><dd id="total-visitors">${count(data.visitors.total)}</dd><dd class="small muted">human ${count(data.visitors.human)}, AI ${count(data.visitors.ai)}</dd></div>`
        : ''
    }
    ${
      data.referrals !== undefined && data.referrals !== null
        ? html`<div class="total-card human"><dt>Sent by AI assistants</dt><dd id="total-referrals">${count(data.referrals)}</dd><dd class="small muted">human views</dd></div>`
        : ''
    }
  </dl>
</section>
<section aria-labelledby="chart-title" class="card">
  <h2 id="chart-title">Human and AI views per ${data.interval}</h2>
  ${
    data.series && data.series.buckets.length > 0
      ? html`<div class="chart-box"><canvas id="traffic-chart" role="img" aria-label="Stacked bar chart of human and AI views per ${data.interval}; the same numbers are in the table below."></canvas></div>
  ${jsonScript('traffic-data', { interval: data.interval, buckets: data.series.buckets.map((b) => ({ start: b.start, human: b.human, ai: b.ai })) })}
  <details class="chart-table">
    <summary>Show the numbers as a table</summary>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">${data.interval === 'day' ? 'Day' : 'Hour'} (UTC)</th><th scope="col">Human</th><th scope="col">AI</th></tr></thead>
      <tbody>${data.series.buckets.map(
        (b) =>
          html`<tr><td>${data.interval === 'day' ? b.start.slice(0, 10) : `${b.start.slice(0, 10)} ${b.start.slice(11, 16)}`}</td><td class="num">${count(b.human)}</td><td class="num">${count(b.ai)}</td></tr>`,
      )}</tbody>
    </table></div>
  </details>`
      : html`<p class="muted">No views in this range.</p>`
  }
</section>
${formatsSection(data.series?.formats, data.mcpCalls)}
<section aria-labelledby="pages-title">
  <div class="section-head">
    <h2 id="pages-title">Top pages${servedAs}</h2>
    ${pagesFormatForm(base, data)}
    <a class="button small" href="${csv('views')}" download>Download CSV<span class="visually-hidden"> of all pages</span></a>
  </div>
  ${
    data.views && data.views.views.length > 0
      ? html`<div class="table-wrap"><table id="top-pages">
    <caption class="visually-hidden">Pages by total views, ${pagesOffset + 1} to ${pagesOffset + data.views.views.length}</caption>
    <thead><tr><th scope="col">Path</th><th scope="col" class="num">Human</th><th scope="col" class="num">AI</th><th scope="col" class="num">Total</th></tr></thead>
    <tbody>${data.views.views.map((v) => html`<tr><td class="break"><code>${v.path}</code></td><td class="num">${count(v.human)}</td><td class="num">${count(v.ai)}</td><td class="num">${count(v.total)}</td></tr>`)}</tbody>
  </table></div>
  <nav class="pager" aria-label="Top pages pages">
    <span class="muted small">Pages ${pagesOffset + 1}–${pagesOffset + data.views.views.length}</span>
    ${data.pagesPage > 1 ? html`<a href="${q({ page: data.pagesPage - 1 })}" rel="prev">Previous</a>` : ''}
    ${data.views.hasMore ? html`<a href="${q({ page: data.pagesPage + 1 })}" rel="next">Next</a>` : ''}
  </nav>`
      : html`<p class="muted">No page views${data.pagesFormat ? ` served as ${FORMAT_NAMES[data.pagesFormat]}` : ''} in this range${data.pagesPage > 1 ? ' on this page' : ''}.</p>`
  }
</section>
<section aria-labelledby="agents-title">
  <div class="section-head">
    <h2 id="agents-title">AI agents</h2>
    <a class="button small" href="${csv('agents')}" download>Download CSV<span class="visually-hidden"> of all AI agents</span></a>
  </div>
  ${agentListLine(data.agentList)}
  ${
    data.agents && data.agents.agents.length > 0
      ? html`<p class="muted small">${count(data.agents.totals.total)} AI views, ${share(data.agents.totals.verified, data.agents.totals.total)} verified (published IP ranges or signed requests).</p>
  <div class="table-wrap"><table id="ai-agents">
    <thead><tr><th scope="col">Agent</th><th scope="col">Operator</th><th scope="col">Category</th><th scope="col" class="num">Views</th><th scope="col" class="num">Verified</th><th scope="col" class="num">Verified share</th></tr></thead>
    <tbody>${data.agents.agents.map(
      (a) =>
        html`<tr><td>${a.agent}</td><td>${a.operator ?? html`<span class="muted">unknown</span>`}</td><td>${a.category ?? html`<span class="muted">unknown</span>`}</td><td class="num">${count(a.total)}</td><td class="num">${count(a.verified)}</td><td class="num">${share(a.verified, a.total)}</td></tr>`,
    )}</tbody>
  </table></div>
  <nav class="pager" aria-label="AI agents pages">
    ${data.agentsPage > 1 ? html`<a href="${q({ apage: data.agentsPage - 1 })}">Previous agents</a>` : ''}
    ${data.agents.hasMore ? html`<a href="${q({ apage: data.agentsPage + 1 })}">More agents</a>` : ''}
  </nav>`
      : html`<p class="muted">No AI agent views in this range.</p>`
  }
</section>
${unrecognizedSection(data.unrecognized)}`,
  );
}
