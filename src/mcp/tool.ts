// What one MCP tool is: its name, words for the model, who may call it, its schemas (from the
// contract, see tool-schemas.ts) and the service call it makes. Tools never reach the database
// themselves: they call the same functions of the modules' index.ts that the HTTP routes call.
import type { Static, TObject } from 'typebox';
import type { Database } from '../db/database.ts';
import type { AgentCatalog } from '../modules/analytics/index.ts';
import type { JobServiceConfig } from '../modules/jobs/index.ts';

/** read: a read or admin key may call it; write: an admin key only (as the HTTP routes' access). */
export type ToolAccess = 'read' | 'write';

/** What a tool call gets besides its arguments: the caller's project and the server's parts. */
export interface ToolCallContext {
  db: Database;
  config: JobServiceConfig;
  agentCatalog: AgentCatalog;
  /** The project of the calling key: every tool acts on it alone. */
  projectId: string;
  /** Wakes a worker in this process after a job is created or re-activated. */
  onJobQueued?: (jobId: string) => void;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Tells the client the call is still going (only when it asked for progress). */
  progress: (progress: number, total: number | undefined, message: string) => Promise<void>;
}

/** A tool's answer: the structured value (what the output schema describes) and notes for the model. */
export interface ToolOutcome {
  value: object;
  notes?: string[];
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface McpTool<I extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  access: ToolAccess;
  input: I;
  output: TObject;
  annotations: ToolAnnotations;
  run(context: ToolCallContext, args: Static<I>): Promise<ToolOutcome>;
}

/** Keeps each tool's argument type tied to its input schema. */
export function defineTool<I extends TObject>(tool: McpTool<I>): McpTool {
  return tool as unknown as McpTool;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
