// /app/projects/:projectId/usage: what the project's agent jobs cost, per day and per model, with
// the month's budget and its alerts. Read through the same export as the API.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import { getProject } from '../../projects/index.ts';
import { exportUsage, monthBudgetAlerts } from '../../usage/index.ts';
import { dayRangeOf } from '../analytics-range.ts';
import { type DashboardContext, frameOf } from '../context.ts';
import { sendPage } from '../respond.ts';
import { type UsagePageData, usagePage } from '../views/usage-view.ts';

type UsageQuery = { Params: { projectId: string }; Querystring: { from?: string; to?: string } };

const DAY_MS = 86_400_000;

/** Every day of the range, with the report's numbers where it has a row. */
function everyDay(
  range: { dateFrom: string; days: number },
  rows: { key: string; costUsd: number; calls: number }[],
): UsagePageData['days'] {
  const byDay = new Map(rows.map((r) => [r.key, r]));
  const start = Date.parse(`${range.dateFrom}T00:00:00Z`);
  return Array.from({ length: range.days }, (_, i) => {
    const day = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
    const row = byDay.get(day);
    return { day, costUsd: row?.costUsd ?? 0, calls: row?.calls ?? 0 };
  });
}

export function registerUsagePageRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { db } = ctx;
  app.get<UsageQuery>('/projects/:projectId/usage', async (request, reply) => {
    const project = await getProject(db, request.params.projectId);
    const parsed = dayRangeOf(request.query);
    const range = parsed.range;
    const data: UsagePageData = {
      range,
      error: parsed.ok ? null : parsed.message,
      days: [],
      byDay: null,
      byModel: null,
      alerts: await monthBudgetAlerts(db, project.id),
    };
    const dates = { dateFrom: range.dateFrom, dateTo: range.dateTo };
    try {
      data.byDay = await exportUsage(db, project.id, { ...dates, groupBy: 'day' });
      data.byModel = await exportUsage(db, project.id, { ...dates, groupBy: 'model' });
      data.days = everyDay(range, data.byDay.rows);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      data.error = e.message;
    }
    return sendPage(reply, usagePage(frameOf(request, { title: `Usage · ${project.name}` }), project, data));
  });
}
