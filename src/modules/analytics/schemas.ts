// The page-view export as the API shows it: the contract's totals, views and hasMore, plus the
// additive range field saying which hours were counted.
import { type Static, Type } from 'typebox';
import { ACCEPTED_DATE_FORMATS } from './date-bounds.ts';

export const MAX_VIEWS_LIMIT = 250;
export const DEFAULT_VIEWS_LIMIT = 50;

export const ViewsQuerySchema = Type.Object({
  dateFrom: Type.Optional(
    Type.String({
      description: `Inclusive start: ${ACCEPTED_DATE_FORMATS}. A time inside an hour counts from the start of that hour. Omitted: unbounded.`,
      examples: ['2026-01-01', '2026-01-01T09:00:00+02:00'],
    }),
  ),
  dateTo: Type.Optional(
    Type.String({
      description: `Exclusive end: ${ACCEPTED_DATE_FORMATS}. A time inside an hour counts up to the end of that hour. Must be later than dateFrom. Omitted: unbounded.`,
      examples: ['2026-02-01', '2026-01-31T18:00:00Z'],
    }),
  ),
  // Optional with a default: Ajv fills the default in, and OpenAPI shows the parameter as optional.
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_VIEWS_LIMIT,
      default: DEFAULT_VIEWS_LIMIT,
      description: `Paths per response, 1 to ${MAX_VIEWS_LIMIT}, written in decimal digits.`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
      description:
        'Rows to skip, written in decimal digits. While hasMore is true, ask again with offset + limit.',
    }),
  ),
});
export type ViewsQuery = Static<typeof ViewsQuerySchema>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Timestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const PageViewReportSchema = Type.Object(
  {
    totals: Type.Object(
      {
        human: Count('Views from human readers, over every path in the range.'),
        ai: Count('Views from AI agents, over every path in the range.'),
        total: Count('human + ai. Non-AI bots (search engines, monitors) are counted in neither.'),
      },
      { description: 'Site-wide totals for the range, whatever the page of views.' },
    ),
    views: Type.Array(
      Type.Object({
        path: Type.String({ description: 'The page path.' }),
        human: Count('Human views of the page.'),
        ai: Count('AI views of the page.'),
        total: Count('human + ai.'),
      }),
      {
        description:
          'Per-page counts, by total descending, then path ascending (byte order). Pages with no human or AI views in the range are not listed.',
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
      {
        description:
          'The hours actually counted: counts are kept per UTC hour, so bounds inside an hour widen to whole hours.',
      },
    ),
  },
  { $id: 'PageViewReport', title: 'Page view report' },
);
export type PageViewReport = Static<typeof PageViewReportSchema>;
