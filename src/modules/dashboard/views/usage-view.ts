// The usage page: what the project's agent jobs cost. The month's spend against the budget, with
// the alerts this month set off; a bar chart of spend per UTC day (Chart.js, as on the analytics
// page, drawn by usage-chart.js from the JSON below it; the same numbers are in a table for
// screen readers and without JavaScript); and the spend per model.
import type { UsageReport } from '../../../contract/index.ts';
import { countOf } from '../../../util/plural.ts';
import type { Project } from '../../projects/index.ts';
import type { BudgetAlertRow } from '../../usage/index.ts';
import type { DayRange } from '../analytics-range.ts';
import { count } from '../format.ts';
import { html, jsonScript, type SafeHtml } from '../html.ts';
import { errorBox, type PageFrame, page } from './layout.ts';

export interface UsagePageData {
  range: DayRange;
  error: string | null;
  /** Every day of the range, days without calls as zero. */
  days: { day: string; costUsd: number; calls: number }[];
  byDay: UsageReport | null;
  byModel: UsageReport | null;
  alerts: BudgetAlertRow[];
}

const usd = (value: number) => `$${value.toFixed(value !== 0 && value < 0.01 ? 4 : 2)}`;

function budgetSection(project: Project, report: UsageReport | null, alerts: BudgetAlertRow[]): SafeHtml {
  const budget = report?.budget;
  if (!budget) return html``;
  const limit = budget.monthlyBudgetUsd;
  const share = limit === null || limit === 0 ? null : Math.round((budget.spentUsd / limit) * 100);
  const top = alerts.at(-1);
  return html`<section aria-labelledby="budget-title" class="card">
  <h2 id="budget-title">This month (${budget.month}, UTC)</h2>
  ${
    top
      ? html`<p class="notice ${top.threshold >= 100 ? 'error' : ''}" role="status" id="budget-alert">${
          top.threshold >= 100
            ? `The monthly budget of ${usd(top.budget_usd)} is spent: new jobs are refused (budget_exhausted) until it is raised or the month ends.`
            : `${top.threshold} % of the monthly budget of ${usd(top.budget_usd)} is spent.`
        }</p>`
      : ''
  }
  <dl class="totals">
    <div class="total-card"><dt>Spent</dt><dd id="month-spent">${usd(budget.spentUsd)}</dd>${
      share === null ? '' : html`<dd class="small muted">${share} % of the budget</dd>`
    }</div>
    <div class="total-card"><dt>Monthly budget</dt><dd id="month-budget">${limit === null ? 'none' : usd(limit)}</dd></div>
    <div class="total-card"><dt>Cap per job</dt><dd id="job-cap">${budget.jobCostCapUsd === null ? 'none' : usd(budget.jobCostCapUsd)}</dd></div>
  </dl>
  <p class="muted small">Set them with <code>docwright projects update ${project.id} --setting monthlyBudgetUsd=200 --setting jobCostCapUsd=5</code> (<code>null</code> removes one).</p>
</section>`;
}

export function usagePage(frame: PageFrame, project: Project, data: UsagePageData): SafeHtml {
  const base = `/app/projects/${encodeURIComponent(project.id)}/usage`;
  const totals = data.byDay?.totals;
  return page(
    {
      ...frame,
      project: { id: project.id, name: project.name, tab: 'usage' },
      scripts: ['vendor/chart.umd.min.js', 'usage-chart.js'],
    },
    html`<h1>Usage and cost</h1>
${budgetSection(project, data.byDay, data.alerts)}
<form method="get" action="${base}" class="range-form card" aria-label="Date range">
  <div class="field"><label for="range-from">From (UTC)</label><input id="range-from" name="from" type="date" value="${data.range.from}" required></div>
  <div class="field"><label for="range-to">To (UTC, included)</label><input id="range-to" name="to" type="date" value="${data.range.to}" required></div>
  <button type="submit">Show</button>
</form>
${errorBox(data.error)}
<p class="muted" id="usage-total">${
      totals
        ? `${usd(totals.costUsd)} for ${countOf(totals.calls, 'model call')} from ${data.range.from} through ${data.range.to}${
            totals.unpricedCalls > 0
              ? `; ${countOf(totals.unpricedCalls, 'call')} of models without a price ${totals.unpricedCalls === 1 ? 'is' : 'are'} not in it`
              : ''
          }.`
        : ''
    }</p>
<section aria-labelledby="spend-chart-title" class="card">
  <h2 id="spend-chart-title">Spend per day (US dollars)</h2>
  ${
    totals && totals.calls > 0
      ? html`<div class="chart-box"><canvas id="spend-chart" role="img" aria-label="Bar chart of US dollars spent on models per day; the same numbers are in the table below."></canvas></div>
  ${jsonScript('spend-data', { days: data.days })}
  <details class="chart-table">
    <summary>Show the numbers as a table</summary>
    <div class="table-wrap"><table id="spend-per-day">
      <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Model calls</th><th scope="col" class="num">Cost</th></tr></thead>
      <tbody>${data.days.map((d) => html`<tr><td>${d.day}</td><td class="num">${count(d.calls)}</td><td class="num">${usd(d.costUsd)}</td></tr>`)}</tbody>
    </table></div>
  </details>`
      : html`<p class="muted">No model calls in this range.</p>`
  }
</section>
<section aria-labelledby="models-title">
  <h2 id="models-title">Per model</h2>
  ${
    data.byModel && data.byModel.rows.length > 0
      ? html`<div class="table-wrap"><table id="spend-per-model">
    <thead><tr><th scope="col">Model</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Input tokens</th><th scope="col" class="num">Cache reads</th><th scope="col" class="num">Cache writes</th><th scope="col" class="num">Output tokens</th><th scope="col" class="num">Cost</th></tr></thead>
    <tbody>${data.byModel.rows.map(
      (r) =>
        html`<tr><td>${r.key}</td><td class="num">${count(r.calls)}</td><td class="num">${count(r.inputTokens)}</td><td class="num">${count(r.cacheReadTokens)}</td><td class="num">${count(r.cacheWriteTokens)}</td><td class="num">${count(r.outputTokens)}</td><td class="num">${r.unpricedCalls === r.calls ? 'no price' : usd(r.costUsd)}</td></tr>`,
    )}</tbody>
  </table></div>`
      : html`<p class="muted">None.</p>`
  }
</section>`,
  );
}
