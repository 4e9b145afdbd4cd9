// Every tool the MCP server offers, in the order tools/list shows them. A read key sees and may
// call the read tools; an admin key all of them (src/mcp/server.ts).
import type { McpTool } from '../tool.ts';
import { ANALYTICS_TOOLS } from './analytics.ts';
import { JOB_TOOLS } from './jobs.ts';
import { USAGE_TOOLS } from './usage.ts';

export const TOOLS: readonly McpTool[] = [...JOB_TOOLS, ...ANALYTICS_TOOLS, ...USAGE_TOOLS];

export const TOOLS_BY_NAME: ReadonlyMap<string, McpTool> = new Map(TOOLS.map((t) => [t.name, t]));
