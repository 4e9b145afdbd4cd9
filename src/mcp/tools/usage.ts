// The spend tool: what the project's agent jobs cost, the export of GET /v2/agent/{projectId}/usage
// as JSON, calling the usage module's export as that route does.
import { exportUsage } from '../../modules/usage/index.ts';
import { defineTool, type McpTool, READ_ONLY } from '../tool.ts';
import { UsageInput, UsageOutput } from '../tool-schemas.ts';

const usageTool = defineTool({
  name: 'get_usage',
  title: 'What agent jobs cost',
  description:
    "Tokens (input, output, cache reads and writes) and cost in USD of the project's agent jobs over a date range, one row per UTC day (groupBy day, the default), per model or per job, with the month's spend against the monthly budget. Calls to a model without a price count in tokens and in unpricedCalls, not in cost. dateFrom is inclusive and dateTo exclusive (UTC); an omitted bound is unbounded. Same as GET /v2/agent/{projectId}/usage.",
  access: 'read',
  input: UsageInput,
  output: UsageOutput,
  annotations: READ_ONLY,
  async run(context, args) {
    return { value: await exportUsage(context.db, context.projectId, args) };
  },
});

export const USAGE_TOOLS: readonly McpTool[] = [usageTool];
