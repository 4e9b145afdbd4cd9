// The typed client of the docwright HTTP API: agent jobs (/v2) and page-view analytics (/v1).

import { agentsToCsv, mcpToolsToCsv, usageToCsv, viewsToCsv, visitorsToCsv } from './csv.ts';
import { type StreamJobEventsOptions, streamJobEvents } from './job-events.ts';
import { csvPages, offsetPages, type PagingOptions } from './paging.ts';
import { type FetchLike, type RequestSpec, Transport } from './transport.ts';
import type {
  AgentReport,
  AgentRow,
  Automation,
  AutomationCreateBody,
  AutomationRunList,
  AutomationUpdateBody,
  Job,
  JobChecks,
  JobCi,
  JobEvent,
  JobList,
  JobStatus,
  McpToolReport,
  McpToolRow,
  PageViewReport,
  PageViewRow,
  PromptBody,
  TimeseriesQuery,
  TimeseriesReport,
  UsageQuery,
  UsageReport,
  ViewFormat,
  VisitorReport,
  VisitorRow,
} from './types.ts';
import { type WaitForJobOptions, waitForJob } from './wait-for-job.ts';

export interface DocwrightClientOptions {
  /** Where the server is, e.g. http://127.0.0.1:3000 (a path prefix is kept). */
  baseUrl: string;
  /** A docwright API key (dw_...): admin for everything, read for the GET calls only. */
  apiKey: string;
  /** Another fetch (a proxy agent, a test recorder); default: the platform's fetch. */
  fetch?: FetchLike;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface CreateJobOptions extends CallOptions {
  /**
   * Makes a retried create safe: the same key and body within 24 hours return the first job
   * instead of a new one. 1 to 255 printable ASCII characters; a UUID is a good choice.
   */
  idempotencyKey?: string;
}

export interface ListJobsOptions extends CallOptions {
  status?: JobStatus;
  /** Jobs per page, 1 to 100 (server default 20). */
  limit?: number;
  /** nextCursor of the previous page. */
  cursor?: string;
}

export interface JobsIteratorOptions extends CallOptions {
  status?: JobStatus;
  /** Jobs per request, 1 to 100 (default 100). */
  pageSize?: number;
}

export interface ViewsOptions extends CallOptions {
  /** Inclusive start: YYYY-MM-DD or an ISO 8601 time; omitted: unbounded. */
  dateFrom?: string;
  /** Exclusive end: YYYY-MM-DD or an ISO 8601 time; omitted: unbounded. */
  dateTo?: string;
  /** Paths per page, 1 to 250 (server default 50). */
  limit?: number;
  offset?: number;
}

/** Date range and page size of the every-page calls (allViews, viewsReport, viewsCsv, agents...). */
export type AllViewsOptions = PagingOptions;

/** The format filter of the page-view export (docs/analytics-formats.md, "Formats per page"). */
export interface PageViewFormatOption {
  /** Count only the views served in this format; pages with none are not listed. */
  format?: ViewFormat;
}

export interface PageViewsOptions extends ViewsOptions, PageViewFormatOption {}
export interface AllPageViewsOptions extends AllViewsOptions, PageViewFormatOption {}

/** The format filter and split of the agents export (docs/analytics-formats.md). */
export interface FormatOptions {
  /** Count only the views served in this format. */
  format?: ViewFormat;
  /** 'format': add the views per format to the totals and to every agent. */
  split?: 'format';
}

export interface AgentsOptions extends ViewsOptions, FormatOptions {}
export interface AllAgentsOptions extends AllViewsOptions, FormatOptions {}

/** Every page of the MCP calls export merged (tools and clients are the first page's). */
export type MergedMcpToolReport = Omit<McpToolReport, 'hasMore'>;

/** Every page of the export merged: the totals, every row, and the hours counted. */
export type MergedViewsReport = Omit<PageViewReport, 'hasMore'>;
/** operators is the first page's (every page has the same); absent from older servers. */
export type MergedAgentReport = Omit<AgentReport, 'hasMore' | 'operators'> & {
  operators?: AgentReport['operators'];
};
export type MergedVisitorReport = Omit<VisitorReport, 'hasMore'>;

export interface TimeseriesOptions extends CallOptions {
  /** hour or day (server default day). */
  interval?: TimeseriesQuery['interval'];
  dateFrom?: string;
  dateTo?: string;
  /** Count only the views served in this format. */
  format?: ViewFormat;
  /** 'format': add the range's views per format (formats). */
  split?: 'format';
}

export interface UsageOptions extends CallOptions {
  dateFrom?: string;
  dateTo?: string;
  /** day (server default), model or job. */
  groupBy?: UsageQuery['groupBy'];
}

export class DocwrightClient {
  readonly #transport: Transport;

  constructor(options: DocwrightClientOptions) {
    this.#transport = new Transport(options);
  }

  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  // Automations ----------------------------------------------------------------------------------

  /** POST /v2/automations/{projectId}: a webhook trigger's answer carries its triggerSecret, once. */
  createAutomation(
    projectId: string,
    body: AutomationCreateBody,
    options: CallOptions = {},
  ): Promise<Automation> {
    return this.#transport.json<Automation>({
      method: 'POST',
      segments: ['v2', 'automations', projectId],
      body,
      signal: options.signal,
    });
  }

  /** GET /v2/automations/{projectId}. */
  async listAutomations(projectId: string, options: CallOptions = {}): Promise<Automation[]> {
    const list = await this.#transport.json<{ automations: Automation[] }>({
      method: 'GET',
      segments: ['v2', 'automations', projectId],
      signal: options.signal,
    });
    return list.automations;
  }

  /** GET /v2/automations/{projectId}/{automationId}. */
  getAutomation(projectId: string, id: string, options: CallOptions = {}): Promise<Automation> {
    return this.#transport.json<Automation>({
      method: 'GET',
      segments: ['v2', 'automations', projectId, id],
      signal: options.signal,
    });
  }

  /** PATCH /v2/automations/{projectId}/{automationId}: fields left out keep their values. */
  updateAutomation(
    projectId: string,
    id: string,
    body: AutomationUpdateBody,
    options: CallOptions = {},
  ): Promise<Automation> {
    return this.#transport.json<Automation>({
      method: 'PATCH',
      segments: ['v2', 'automations', projectId, id],
      body,
      signal: options.signal,
    });
  }

  /** DELETE /v2/automations/{projectId}/{automationId}. */
  async deleteAutomation(projectId: string, id: string, options: CallOptions = {}): Promise<void> {
    await this.#transport.send({
      method: 'DELETE',
      segments: ['v2', 'automations', projectId, id],
      signal: options.signal,
    });
  }

  /** One page of GET /v2/automations/{projectId}/{automationId}/runs, newest first. */
  listAutomationRuns(
    projectId: string,
    id: string,
    options: CallOptions & { limit?: number; cursor?: string } = {},
  ): Promise<AutomationRunList> {
    return this.#transport.json<AutomationRunList>({
      method: 'GET',
      segments: ['v2', 'automations', projectId, id, 'runs'],
      query: { limit: options.limit, cursor: options.cursor },
      signal: options.signal,
    });
  }

  // Agent jobs -----------------------------------------------------------------------------------

  /** POST /v2/agent/{projectId}/job: starts a job; it answers at once with status active. */
  createJob(projectId: string, body: PromptBody, options: CreateJobOptions = {}): Promise<Job> {
    return this.#transport.json<Job>({
      method: 'POST',
      segments: ['v2', 'agent', projectId, 'job'],
      body,
      ...(options.idempotencyKey === undefined
        ? {}
        : { headers: { 'idempotency-key': options.idempotencyKey } }),
      signal: options.signal,
    });
  }

  /** GET /v2/agent/{projectId}/job/{id}. */
  getJob(projectId: string, id: string, options: CallOptions = {}): Promise<Job> {
    return this.#transport.json<Job>({
      method: 'GET',
      segments: ['v2', 'agent', projectId, 'job', id],
      signal: options.signal,
    });
  }

  /**
   * GET /v2/agent/{projectId}/job/{id}/checks: the job's last docs check. NotFoundError with code
   * job_checks_not_found while there is none (not checked yet, checks off).
   */
  getJobChecks(projectId: string, id: string, options: CallOptions = {}): Promise<JobChecks> {
    return this.#transport.json<JobChecks>({
      method: 'GET',
      segments: ['v2', 'agent', projectId, 'job', id, 'checks'],
      signal: options.signal,
    });
  }

  /**
   * GET /v2/agent/{projectId}/job/{id}/ci: the CI watch of the job's pull request. NotFoundError
   * with code job_ci_not_found when there is none (the project's ci setting is off, no pull request).
   */
  getJobCi(projectId: string, id: string, options: CallOptions = {}): Promise<JobCi> {
    return this.#transport.json<JobCi>({
      method: 'GET',
      segments: ['v2', 'agent', projectId, 'job', id, 'ci'],
      signal: options.signal,
    });
  }

  /** One page of GET /v2/agent/{projectId}/jobs, newest first. */
  listJobs(projectId: string, options: ListJobsOptions = {}): Promise<JobList> {
    return this.#transport.json<JobList>({
      method: 'GET',
      segments: ['v2', 'agent', projectId, 'jobs'],
      query: { status: options.status, limit: options.limit, cursor: options.cursor },
      signal: options.signal,
    });
  }

  /** Every job of the project (optionally of one status), newest first, page after page. */
  async *jobs(projectId: string, options: JobsIteratorOptions = {}): AsyncGenerator<Job, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listJobs(projectId, {
        limit: options.pageSize ?? 100,
        ...(options.status ? { status: options.status } : {}),
        ...(cursor ? { cursor } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      yield* page.jobs;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** POST .../job/{id}/message: a follow-up on the same branch and pull request; the job becomes active again. */
  sendMessage(projectId: string, id: string, body: PromptBody, options: CallOptions = {}): Promise<Job> {
    return this.#transport.json<Job>({
      method: 'POST',
      segments: ['v2', 'agent', projectId, 'job', id, 'message'],
      body,
      signal: options.signal,
    });
  }

  /** POST .../job/{id}/cancel: the job becomes failed with error.code "cancelled". */
  cancelJob(projectId: string, id: string, options: CallOptions = {}): Promise<Job> {
    return this.#transport.json<Job>({
      method: 'POST',
      segments: ['v2', 'agent', projectId, 'job', id, 'cancel'],
      signal: options.signal,
    });
  }

  /** POST .../job/{id}/archive: a finished job becomes archived. */
  archiveJob(projectId: string, id: string, options: CallOptions = {}): Promise<Job> {
    return this.#transport.json<Job>({
      method: 'POST',
      segments: ['v2', 'agent', projectId, 'job', id, 'archive'],
      signal: options.signal,
    });
  }

  /**
   * The job's events as they happen (server-sent events), from the first or after lastEventId;
   * reconnects with Last-Event-ID when the connection drops, and ends when the job is over.
   */
  streamJobEvents(
    projectId: string,
    id: string,
    options: StreamJobEventsOptions = {},
  ): AsyncGenerator<JobEvent> {
    return streamJobEvents(this.#transport, projectId, id, options);
  }

  /** The stored events as JSON (no stream): at most limit (1 to 1000) after the id `after`. */
  listJobEvents(
    projectId: string,
    id: string,
    options: CallOptions & { after?: number; limit?: number } = {},
  ): Promise<JobEvent[]> {
    return this.#transport.json<JobEvent[]>({
      method: 'GET',
      segments: ['v2', 'agent', projectId, 'job', id, 'events'],
      query: { format: 'json', after: options.after, limit: options.limit },
      signal: options.signal,
    });
  }

  /** Resolves with the job once its status is completed, archived or failed. */
  waitForJob(projectId: string, id: string, options: WaitForJobOptions = {}): Promise<Job> {
    return waitForJob(
      this.#transport,
      (signal) => this.getJob(projectId, id, { signal }),
      { projectId, jobId: id },
      options,
    );
  }

  // Analytics ------------------------------------------------------------------------------------

  /** One page of GET /v1/analytics/{projectId}/views (with format, that format's views only). */
  views(projectId: string, options: PageViewsOptions = {}): Promise<PageViewReport> {
    return this.#transport.json<PageViewReport>(
      this.#rangeRequest(projectId, 'views', options, { format: options.format }),
    );
  }

  /** Every page of the page-view export: the first page, then offset += limit while hasMore. */
  viewPages(
    projectId: string,
    options: AllPageViewsOptions = {},
  ): AsyncGenerator<PageViewReport, void, undefined> {
    const format = options.format === undefined ? {} : { format: options.format };
    return offsetPages(
      (page) => this.views(projectId, { ...page, ...format }),
      options,
      (r) => r.views.length,
    );
  }

  /** Every row of the page-view export, page after page. */
  async *allViews(
    projectId: string,
    options: AllPageViewsOptions = {},
  ): AsyncGenerator<PageViewRow, void, undefined> {
    for await (const page of this.viewPages(projectId, options)) yield* page.views;
  }

  /** The whole page-view export in one object: totals and range of the first page, the rows of every page. */
  async viewsReport(projectId: string, options: AllPageViewsOptions = {}): Promise<MergedViewsReport> {
    let merged: MergedViewsReport | null = null;
    for await (const page of this.viewPages(projectId, options)) {
      if (merged === null) merged = { totals: page.totals, views: [...page.views], range: page.range };
      else merged.views.push(...page.views);
    }
    return merged!;
  }

  /** The whole page-view export as one CSV document (header once), from the server's CSV pages. */
  viewsCsv(projectId: string, options: AllPageViewsOptions = {}): Promise<string> {
    return csvPages(
      this.#transport,
      (page) => this.#rangeRequest(projectId, 'views', page, { format: options.format }),
      options,
      (page: PageViewReport) => ({
        csv: viewsToCsv(page.views, options),
        rows: page.views.length,
        hasMore: page.hasMore,
      }),
    );
  }

  /** One page of GET /v1/analytics/{projectId}/visitors: approximate distinct visitors per page. */
  visitors(projectId: string, options: ViewsOptions = {}): Promise<VisitorReport> {
    return this.#transport.json<VisitorReport>(this.#rangeRequest(projectId, 'visitors', options));
  }

  /** Every page of the visitors export. */
  visitorPages(
    projectId: string,
    options: AllViewsOptions = {},
  ): AsyncGenerator<VisitorReport, void, undefined> {
    return offsetPages(
      (page) => this.visitors(projectId, page),
      options,
      (r) => r.visitors.length,
    );
  }

  /** Every row of the visitors export, page after page. */
  async *allVisitors(
    projectId: string,
    options: AllViewsOptions = {},
  ): AsyncGenerator<VisitorRow, void, undefined> {
    for await (const page of this.visitorPages(projectId, options)) yield* page.visitors;
  }

  /** The whole visitors export in one object: totals and range of the first page, every page's rows. */
  async visitorsReport(projectId: string, options: AllViewsOptions = {}): Promise<MergedVisitorReport> {
    let merged: MergedVisitorReport | null = null;
    for await (const page of this.visitorPages(projectId, options)) {
      if (merged === null) merged = { totals: page.totals, visitors: [...page.visitors], range: page.range };
      else merged.visitors.push(...page.visitors);
    }
    return merged!;
  }

  /** The whole visitors export as one CSV document (header once). */
  visitorsCsv(projectId: string, options: AllViewsOptions = {}): Promise<string> {
    return csvPages(
      this.#transport,
      (page) => this.#rangeRequest(projectId, 'visitors', page),
      options,
      (page: VisitorReport) => ({
        csv: visitorsToCsv(page.visitors),
        rows: page.visitors.length,
        hasMore: page.hasMore,
      }),
    );
  }

  /** One page of GET /v1/analytics/{projectId}/agents: AI views per agent, verified and unverified. */
  agents(projectId: string, options: AgentsOptions = {}): Promise<AgentReport> {
    return this.#transport.json<AgentReport>(
      this.#rangeRequest(projectId, 'agents', options, formatQuery(options)),
    );
  }

  /** Every page of the agents export. */
  agentPages(
    projectId: string,
    options: AllAgentsOptions = {},
  ): AsyncGenerator<AgentReport, void, undefined> {
    return offsetPages(
      (page) => this.agents(projectId, { ...page, ...formatOptions(options) }),
      options,
      (r) => r.agents.length,
    );
  }

  /** Every row of the agents export, page after page. */
  async *allAgents(
    projectId: string,
    options: AllAgentsOptions = {},
  ): AsyncGenerator<AgentRow, void, undefined> {
    for await (const page of this.agentPages(projectId, options)) yield* page.agents;
  }

  /** The whole agents export in one object. */
  async agentsReport(projectId: string, options: AllAgentsOptions = {}): Promise<MergedAgentReport> {
    let merged: MergedAgentReport | null = null;
    for await (const page of this.agentPages(projectId, options)) {
      if (merged === null)
        merged = {
          totals: page.totals,
          agents: [...page.agents],
          range: page.range,
          ...(page.operators ? { operators: page.operators } : {}),
        };
      else merged.agents.push(...page.agents);
    }
    return merged!;
  }

  /** The whole agents export as one CSV document (header once). */
  agentsCsv(projectId: string, options: AllAgentsOptions = {}): Promise<string> {
    return csvPages(
      this.#transport,
      (page) => this.#rangeRequest(projectId, 'agents', page, formatQuery(options)),
      options,
      (page: AgentReport) => ({
        csv: agentsToCsv(page.agents, options),
        rows: page.agents.length,
        hasMore: page.hasMore,
      }),
    );
  }

  /** GET /v1/analytics/{projectId}/timeseries: human, AI and bot views per hour or day. */
  timeseries(projectId: string, options: TimeseriesOptions = {}): Promise<TimeseriesReport> {
    return this.#transport.json<TimeseriesReport>({
      method: 'GET',
      segments: ['v1', 'analytics', projectId, 'timeseries'],
      query: {
        interval: options.interval,
        dateFrom: options.dateFrom,
        dateTo: options.dateTo,
        format: options.format,
        split: options.split,
      },
      signal: options.signal,
    });
  }

  /** One page of GET /v1/analytics/{projectId}/mcp-tools: MCP calls per tool, method and client. */
  mcpTools(projectId: string, options: ViewsOptions = {}): Promise<McpToolReport> {
    return this.#transport.json<McpToolReport>(this.#rangeRequest(projectId, 'mcp-tools', options));
  }

  /** Every page of the MCP calls export. */
  mcpToolPages(
    projectId: string,
    options: AllViewsOptions = {},
  ): AsyncGenerator<McpToolReport, void, undefined> {
    return offsetPages(
      (page) => this.mcpTools(projectId, page),
      options,
      (r) => r.calls.length,
    );
  }

  /** Every row of the MCP calls export, page after page. */
  async *allMcpTools(
    projectId: string,
    options: AllViewsOptions = {},
  ): AsyncGenerator<McpToolRow, void, undefined> {
    for await (const page of this.mcpToolPages(projectId, options)) yield* page.calls;
  }

  /** The whole MCP calls export in one object: totals, tools, clients and range of the first page, every page's rows. */
  async mcpToolsReport(projectId: string, options: AllViewsOptions = {}): Promise<MergedMcpToolReport> {
    let merged: MergedMcpToolReport | null = null;
    for await (const page of this.mcpToolPages(projectId, options)) {
      if (merged === null)
        merged = {
          totals: page.totals,
          tools: page.tools,
          clients: page.clients,
          calls: [...page.calls],
          range: page.range,
        };
      else merged.calls.push(...page.calls);
    }
    return merged!;
  }

  /** The whole MCP calls export as one CSV document (header once). */
  mcpToolsCsv(projectId: string, options: AllViewsOptions = {}): Promise<string> {
    return csvPages(
      this.#transport,
      (page) => this.#rangeRequest(projectId, 'mcp-tools', page),
      options,
      (page: McpToolReport) => ({
        csv: mcpToolsToCsv(page.calls),
        rows: page.calls.length,
        hasMore: page.hasMore,
      }),
    );
  }

  /** GET /v2/agent/{projectId}/usage: what agent jobs cost, per UTC day, model or job. */
  usage(projectId: string, options: UsageOptions = {}): Promise<UsageReport> {
    return this.#transport.json<UsageReport>({
      method: 'GET',
      segments: ['v2', 'agent', projectId, 'usage'],
      query: { dateFrom: options.dateFrom, dateTo: options.dateTo, groupBy: options.groupBy },
      signal: options.signal,
    });
  }

  /** The usage report's rows as CSV, written by the contract's CSV rules. */
  async usageCsv(projectId: string, options: UsageOptions = {}): Promise<string> {
    return usageToCsv(await this.usage(projectId, options));
  }

  #rangeRequest(
    projectId: string,
    report: 'views' | 'agents' | 'visitors' | 'mcp-tools',
    options: ViewsOptions,
    extra: { format?: ViewFormat | undefined; split?: 'format' | undefined } = {},
  ): RequestSpec {
    return {
      method: 'GET',
      segments: ['v1', 'analytics', projectId, report],
      query: {
        dateFrom: options.dateFrom,
        dateTo: options.dateTo,
        limit: options.limit,
        offset: options.offset,
        ...extra,
      },
      signal: options.signal,
    };
  }
}

/** The format filter and split as query parameters (undefined ones are left out). */
function formatQuery(options: FormatOptions): {
  format?: ViewFormat | undefined;
  split?: 'format' | undefined;
} {
  return { format: options.format, split: options.split };
}

/** The format filter and split alone, to pass on with each page. */
function formatOptions(options: FormatOptions): FormatOptions {
  return {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.split === undefined ? {} : { split: options.split }),
  };
}
