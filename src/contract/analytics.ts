// The exports as the API shows them: the contract's page-view report (totals, views, hasMore) plus
// the additive range field, and the additive agents and time-series reports.
import { type Static, Type } from 'typebox';
import { VIEW_FORMATS } from './view-formats.ts';

/** What an AI agent does, as the agent list (data/ai-agents.json) files it. */
export type AgentCategory = 'assistant' | 'search' | 'training' | 'coding' | 'other_ai';
export const AGENT_CATEGORIES: readonly AgentCategory[] = [
  'assistant',
  'search',
  'training',
  'coding',
  'other_ai',
];

/** The date and date-time forms dateFrom and dateTo accept, in words (parsed by date-bounds.ts). */
export const ACCEPTED_DATE_FORMATS =
  'a date YYYY-MM-DD (UTC midnight) or an ISO 8601 date-time YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or an offset such as +02:00 (no offset means UTC)';

export const MAX_VIEWS_LIMIT = 250;
export const DEFAULT_VIEWS_LIMIT = 50;
/** Buckets one time series may have: 100 days of hours, or about 6.5 years of days. */
export const MAX_TIMESERIES_BUCKETS = 2400;

const DateFrom = Type.Optional(
  Type.String({
    description: `Inclusive start: ${ACCEPTED_DATE_FORMATS}. A time inside an hour counts from the start of that hour. Omitted: unbounded.`,
    examples: ['2026-01-01', '2026-01-01T09:00:00+02:00'],
  }),
);
const DateTo = Type.Optional(
  Type.String({
    description: `Exclusive end: ${ACCEPTED_DATE_FORMATS}. A time inside an hour counts up to the end of that hour. Must be later than dateFrom. Omitted: unbounded.`,
    examples: ['2026-02-01', '2026-01-31T18:00:00Z'],
  }),
);

function pagedRangeQuery(rows: string) {
  return Type.Object({
    dateFrom: DateFrom,
    dateTo: DateTo,
    // Optional with a default: Ajv fills the default in, and OpenAPI shows the parameter as optional.
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_VIEWS_LIMIT,
        default: DEFAULT_VIEWS_LIMIT,
        description: `${rows} per response, 1 to ${MAX_VIEWS_LIMIT}, written in decimal digits.`,
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
}

export const ViewsQuerySchema = pagedRangeQuery('Paths');
export type ViewsQuery = Static<typeof ViewsQuerySchema>;

/** The format filter of /agents and /timeseries (docs/analytics-formats.md). */
const FormatFilter = Type.Optional(
  Type.Union(
    VIEW_FORMATS.map((f) => Type.Literal(f)),
    {
      description: `Count only views served in this format: html (pages), markdown (.md or Accept: text/markdown), llms (/llms.txt, /llms-full.txt) or mcp (calls to the docs site's MCP server). Omitted: every view.`,
      examples: ['markdown'],
    },
  ),
);

/** Asks for the views per format beside the counts (docs/analytics-formats.md). */
const SplitParameter = (what: string) =>
  Type.Optional(
    Type.Literal('format', {
      description: `format: add ${what} per format (html, markdown, llms, mcp). Omitted: no split.`,
    }),
  );

/** /views: the paged range, and the format filter (docs/analytics-formats.md, "Formats per page"). */
export const PageViewsQuerySchema = Type.Object({
  ...pagedRangeQuery('Paths').properties,
  format: FormatFilter,
});
export type PageViewsQuery = Static<typeof PageViewsQuerySchema>;

export const AgentsQuerySchema = Type.Object({
  ...pagedRangeQuery('Agents').properties,
  format: FormatFilter,
  split: SplitParameter('the views of the totals and of every agent'),
});
export type AgentsQuery = Static<typeof AgentsQuerySchema>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** Views per format; the four add up to the total they split. */
const FormatCounts = (description: string) =>
  Type.Object(
    {
      html: Count('Views of pages (and every view counted before formats were kept).'),
      markdown: Count('Views of Markdown: a .md path, or an Accept header preferring text/markdown.'),
      llms: Count('Fetches of /llms.txt and /llms-full.txt.'),
      mcp: Count("Calls to the docs site's MCP server."),
    },
    { description },
  );
const Timestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

const RangeSchema = (description: string) =>
  Type.Object(
    {
      from: Timestamp('Start of the first hour counted (inclusive), UTC; null when dateFrom was omitted.'),
      to: Timestamp('End of the last hour counted (exclusive), UTC; null when dateTo was omitted.'),
    },
    { description },
  );
const HOURS_COUNTED =
  'The hours actually counted: counts are kept per UTC hour, so bounds inside an hour widen to whole hours.';

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
    range: RangeSchema(HOURS_COUNTED),
  },
  { $id: 'PageViewReport', title: 'Page view report' },
);
export type PageViewReport = Static<typeof PageViewReportSchema>;

// Spelled out so the static type keeps the literals (a mapped array would widen them).
const Category = Type.Union(
  [
    Type.Literal('assistant'),
    Type.Literal('search'),
    Type.Literal('training'),
    Type.Literal('coding'),
    Type.Literal('other_ai'),
    Type.Null(),
  ],
  {
    description: `What the agent does (${AGENT_CATEGORIES.join(', ')}, from the agent list); null when the list no longer has it.`,
  },
);

export const AgentReportSchema = Type.Object(
  {
    totals: Type.Object(
      {
        verified: Count('AI views whose claim was verified (IP ranges or Web Bot Auth), over every agent.'),
        unverified: Count('AI views whose claim could not be verified, over every agent.'),
        total: Count('verified + unverified: every AI view in the range.'),
        formats: Type.Optional(
          FormatCounts(
            'With split=format: total split by format (with a format filter, only that format is non-zero).',
          ),
        ),
      },
      { description: 'Totals over every AI agent in the range, whatever the page.' },
    ),
    agents: Type.Array(
      Type.Object({
        agent: Type.String({ description: 'The agent name, as in the agent list ("GPTBot").' }),
        operator: Type.Union([Type.String(), Type.Null()], {
          description: 'Who runs it (from the agent list); null when unknown.',
        }),
        category: Category,
        verified: Count('Views whose claim to be this agent was verified.'),
        unverified: Count('Views that claimed to be this agent, unverified.'),
        total: Count('verified + unverified.'),
        formats: Type.Optional(FormatCounts("With split=format: the agent's total split by format.")),
      }),
      {
        description:
          'Per-agent AI views, by total descending, then agent ascending (byte order). Agents with no views in the range are not listed; non-AI bots never are.',
      },
    ),
    hasMore: Type.Boolean({
      description: 'True exactly when more rows follow this page: ask again with offset + limit.',
    }),
    operators: Type.Array(
      Type.Object({
        operator: Type.String({ description: 'Who runs the agents and assistants (OpenAI, Anthropic...).' }),
        crawls: Count("AI views by the operator's agents in the range (every agent, not only this page's)."),
        referrals: Count(
          "Human views referred by the operator's AI assistants in the range (see /referrals).",
        ),
      }),
      {
        description:
          'Crawls against referrals per operator over the range: what its agents read next to the readers its answers sent. By crawls descending, then referrals descending, then operator. Agents of unknown operator are left out.',
      },
    ),
    range: RangeSchema(HOURS_COUNTED),
  },
  { $id: 'AgentReport', title: 'AI agent report' },
);
export type AgentReport = Static<typeof AgentReportSchema>;

export const UnrecognizedQuerySchema = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_VIEWS_LIMIT,
      default: DEFAULT_VIEWS_LIMIT,
      description: `Products per response, 1 to ${MAX_VIEWS_LIMIT}, written in decimal digits.`,
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
export type UnrecognizedQuery = Static<typeof UnrecognizedQuerySchema>;

export const UnrecognizedAgentReportSchema = Type.Object(
  {
    agents: Type.Array(
      Type.Object({
        product: Type.String({
          description:
            'The product token the user agents name themselves by, without version ("NovelAgent").',
        }),
        class: Type.Union([Type.Literal('bot'), Type.Literal('human')], {
          description: 'How these views were counted: bot (isbot recognised it) or human (the default).',
        }),
        reason: Type.Union(
          [Type.Literal('isbot'), Type.Literal('automated_words'), Type.Literal('no_browser_engine')],
          {
            description:
              'Why it looks automated: isbot recognised it; it uses words such as bot, agent, AI, GPT, LLM, crawler, fetcher; or it has no browser engine token.',
          },
        ),
        views: Count('Views counted from these user agents since they were first seen.'),
        firstSeen: Type.String({
          format: 'date-time',
          description: 'When the first such view was received.',
        }),
        lastSeen: Type.String({
          format: 'date-time',
          description: 'When the latest such view was received.',
        }),
        example: Type.String({
          description: 'One user agent that led here (the first seen), at most 256 characters.',
        }),
      }),
      {
        description:
          'Per product and class, most views first, then product. User agents named by the AI-agent list are never here.',
      },
    ),
    hasMore: Type.Boolean({
      description: 'True exactly when more rows follow this page: ask again with offset + limit.',
    }),
  },
  { $id: 'UnrecognizedAgentReport', title: 'Unrecognized agents report' },
);
export type UnrecognizedAgentReportBody = Static<typeof UnrecognizedAgentReportSchema>;

export const TIMESERIES_INTERVALS = ['hour', 'day'] as const;
export type TimeseriesInterval = (typeof TIMESERIES_INTERVALS)[number];

export const TimeseriesQuerySchema = Type.Object({
  interval: Type.Optional(
    Type.Union([Type.Literal('hour'), Type.Literal('day')], {
      default: 'day',
      description: 'Bucket size: a UTC hour or a UTC day. Default day.',
    }),
  ),
  dateFrom: Type.Optional(
    Type.String({
      description: `Inclusive start: ${ACCEPTED_DATE_FORMATS}. Widened down to the start of its bucket. Omitted: the first bucket with views.`,
      examples: ['2026-01-01'],
    }),
  ),
  dateTo: Type.Optional(
    Type.String({
      description: `Exclusive end: ${ACCEPTED_DATE_FORMATS}. Widened up to the end of its bucket. Must be later than dateFrom. Omitted: the end of the last bucket with views.`,
      examples: ['2026-02-01'],
    }),
  ),
  format: FormatFilter,
  split: SplitParameter("formats, the range's views"),
});
export type TimeseriesQuery = Static<typeof TimeseriesQuerySchema>;

const TrafficCounts = {
  human: Count('Views from human readers.'),
  ai: Count('Views from AI agents.'),
  bot: Count('Views from non-AI bots (search engines, monitors, link previews).'),
  total: Count('human + ai (bots excluded, as in the page-view report).'),
};

export const TimeseriesReportSchema = Type.Object(
  {
    interval: Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'The bucket size.' }),
    totals: Type.Object(TrafficCounts, { description: 'Sums over every bucket.' }),
    buckets: Type.Array(
      Type.Object({
        start: Type.String({ format: 'date-time', description: 'Start of the bucket (UTC).' }),
        ...TrafficCounts,
      }),
      {
        description: `Every bucket of the range in time order, empty ones included with zeros; at most ${MAX_TIMESERIES_BUCKETS}.`,
      },
    ),
    formats: Type.Optional(
      Type.Object(
        {
          html: Type.Object(TrafficCounts, { description: "The range's html views." }),
          markdown: Type.Object(TrafficCounts, { description: "The range's markdown views." }),
          llms: Type.Object(TrafficCounts, { description: "The range's llms.txt fetches." }),
          mcp: Type.Object(TrafficCounts, { description: "The range's MCP calls." }),
        },
        {
          description:
            'With split=format: totals split by format; the four add up to totals, class by class (with a format filter, only that format is non-zero). html is every view the other formats do not claim, including views counted before formats were kept.',
        },
      ),
    ),
    range: RangeSchema(
      'The buckets counted: bounds widen outward to whole buckets; an omitted bound is the first or last bucket with views, null when there are none.',
    ),
  },
  { $id: 'TimeseriesReport', title: 'Traffic time series' },
);
export type TimeseriesReport = Static<typeof TimeseriesReportSchema>;
