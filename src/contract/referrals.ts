// The AI-referrals export (GET /v1/analytics/{projectId}/referrals): human views whose referrer or
// utm_source names an AI assistant (data/ai-referrers.json), per assistant and page, with the same
// query as the page-view export (ViewsQuerySchema). CSV columns are in referrals-csv.ts.
import { type Static, Type } from 'typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Timestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const ReferralReportSchema = Type.Object(
  {
    totals: Type.Object(
      { views: Count('Human views referred by any AI assistant over the range.') },
      { description: 'Site-wide, whatever the page of rows.' },
    ),
    assistants: Type.Array(
      Type.Object({
        assistant: Type.String({
          description: 'The assistant, as data/ai-referrers.json names it (e.g. ChatGPT).',
        }),
        operator: Type.String({ description: 'Who runs it (e.g. OpenAI).' }),
        views: Count('Human views it referred over the range.'),
      }),
      { description: 'Every assistant that referred views in the range, by views descending, then name.' },
    ),
    referrals: Type.Array(
      Type.Object({
        assistant: Type.String({ description: 'The assistant.' }),
        operator: Type.String({ description: 'Who runs it.' }),
        path: Type.String({ description: 'The page path.' }),
        views: Count('Human views of the page referred by the assistant.'),
      }),
      {
        description:
          'One page of (assistant, page) rows, by views descending, then assistant and path (byte order).',
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
  { $id: 'ReferralReport', title: 'AI referral report' },
);
export type ReferralReport = Static<typeof ReferralReportSchema>;
