// The distinct-visitors export (GET /v1/analytics/{projectId}/visitors): the same query as the
// page-view export (ViewsQuerySchema), answering approximate distinct visitors per page. Its CSV
// columns are in visitors-csv.ts, which imports nothing at run time (the client loads it).
import { type Static, Type } from 'typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Timestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const VisitorReportSchema = Type.Object(
  {
    totals: Type.Object(
      {
        human: Count('Distinct human visitors over every path in the range.'),
        ai: Count(
          "Distinct AI-agent visitors over every path in the range (an agent's requests from one IP address are one visitor).",
        ),
        total: Count('Distinct visitors of either kind: the union, so total ≤ human + ai.'),
      },
      { description: 'Site-wide distinct visitors for the range, whatever the page of rows.' },
    ),
    visitors: Type.Array(
      Type.Object({
        path: Type.String({ description: 'The page path.' }),
        human: Count('Distinct human visitors of the page.'),
        ai: Count('Distinct AI-agent visitors of the page.'),
        total: Count('Distinct visitors of the page: the union, so total ≤ human + ai.'),
      }),
      {
        description:
          'Per-page distinct visitors, by total descending, then path ascending (byte order). Counts are approximate (docs/analytics-visitors.md): exact up to 2048 visitors per page and bucket, then within about 2% (p99).',
      },
    ),
    hasMore: Type.Boolean({
      description: 'True exactly when more rows follow this page: ask again with offset + limit.',
    }),
    range: Type.Object(
      {
        from: Timestamp('Start of the first hour counted (inclusive), UTC; null when dateFrom was omitted.'),
        to: Timestamp('End of the last hour counted (exclusive), UTC; null when dateTo was omitted.'),
      },
      { description: 'The hours actually counted: bounds inside an hour widen to whole hours.' },
    ),
  },
  { $id: 'VisitorReport', title: 'Distinct visitor report' },
);
export type VisitorReport = Static<typeof VisitorReportSchema>;
