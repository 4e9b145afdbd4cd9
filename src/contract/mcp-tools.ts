// The MCP calls export (GET /v1/analytics/{projectId}/mcp-tools): calls to the docs site's MCP
// server, as sent to the ingest API as records of type mcp, per tool, method and client, with the
// same query as the page-view export (ViewsQuerySchema). CSV columns are in mcp-tools-csv.ts.
import { type Static, Type } from 'typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Timestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/** Entries of the tools and clients summaries at most. */
export const MCP_SUMMARY_LIMIT = 100;

export const McpToolReportSchema = Type.Object(
  {
    totals: Type.Object(
      { calls: Count('MCP calls over the range.') },
      { description: 'Site-wide, whatever the page of rows.' },
    ),
    tools: Type.Array(
      Type.Object({
        tool: Type.String({ description: "The tool ('' for methods that name none, such as tools/list)." }),
        calls: Count('Calls over the range.'),
      }),
      {
        description: `Calls per tool over the range, by calls descending, then tool (byte order); the ${MCP_SUMMARY_LIMIT} most called.`,
      },
    ),
    clients: Type.Array(
      Type.Object({
        clientName: Type.String({ description: "The client's name (clientInfo.name); '' when not sent." }),
        calls: Count('Calls over the range.'),
      }),
      {
        description: `Calls per client name over the range, by calls descending, then name (byte order); the ${MCP_SUMMARY_LIMIT} most calling.`,
      },
    ),
    calls: Type.Array(
      Type.Object({
        tool: Type.String({ description: "The tool called; '' when the method names none." }),
        method: Type.String({ description: 'The MCP method (tools/call, tools/list, resources/read...).' }),
        clientName: Type.String({ description: "The client's name; '' when not sent." }),
        clientVersion: Type.String({ description: "The client's version; '' when not sent." }),
        calls: Count('Calls with this tool, method and client over the range.'),
      }),
      {
        description:
          'One page of (tool, method, client name, client version) rows, by calls descending, then tool, method, client name and version (byte order).',
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
  { $id: 'McpToolReport', title: 'MCP calls report' },
);
export type McpToolReport = Static<typeof McpToolReportSchema>;
