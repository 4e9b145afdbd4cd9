// The AI-agent export: views per agent, verified and unverified, with operator and category from
// the agent list, read through the store; with a format filter only the views served in that
// format, and with split=format each agent's views per format.

import {
  type AgentReport,
  DEFAULT_VIEWS_LIMIT,
  VIEW_FORMATS,
  type ViewFormat,
} from '../../contract/index.ts';
import type { Database } from '../../db/database.ts';
import type { AgentCatalog } from './agent-catalog.ts';
import { type AiReferrers, curatedAiReferrers } from './classification/ai-referrers.ts';
import { reportedRange, resolveHourRange } from './export-range.ts';
import { crawlsAndReferrals } from './operators.ts';
import { type AgentPage, readPage } from './store/index.ts';
import type { ViewsRequest } from './views.ts';

export interface AgentsRequest extends ViewsRequest {
  format?: ViewFormat | undefined;
  split?: 'format' | undefined;
}

type FormatCounts = Record<ViewFormat, number>;

interface AgentCounts {
  agent: string;
  verified: number;
  unverified: number;
  total: number;
}

/** Verified and unverified views per format but html, per agent. */
type StoredByAgent = Map<string, Map<ViewFormat, { verified: number; unverified: number }>>;

function byAgent(rows: AgentPage['formats']): StoredByAgent {
  const map: StoredByAgent = new Map();
  for (const row of rows) {
    let formats = map.get(row.agent);
    if (formats === undefined) {
      formats = new Map();
      map.set(row.agent, formats);
    }
    formats.set(row.format, { verified: Number(row.verified), unverified: Number(row.unverified) });
  }
  return map;
}

/** An agent's views in one format: html is its views less those of the other formats. */
function inFormat(row: AgentCounts, stored: StoredByAgent, format: ViewFormat): AgentCounts {
  const formats = stored.get(row.agent);
  if (format !== 'html') {
    const found = formats?.get(format);
    const verified = found?.verified ?? 0;
    const unverified = found?.unverified ?? 0;
    return { agent: row.agent, verified, unverified, total: verified + unverified };
  }
  let verified = Number(row.verified);
  let unverified = Number(row.unverified);
  for (const counts of formats?.values() ?? []) {
    verified -= counts.verified;
    unverified -= counts.unverified;
  }
  return { agent: row.agent, verified, unverified, total: verified + unverified };
}

function splitOf(row: AgentCounts, stored: StoredByAgent, only: ViewFormat | undefined): FormatCounts {
  const split = { html: 0, markdown: 0, llms: 0, mcp: 0 };
  for (const format of VIEW_FORMATS) {
    if (only === undefined || only === format) split[format] = inFormat(row, stored, format).total;
  }
  return split;
}

/** Byte order of UTF-8, as the SQL's COLLATE "C". */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export async function exportAgents(
  db: Database,
  projectId: string,
  request: AgentsRequest,
  catalog: AgentCatalog,
  referrers: AiReferrers = curatedAiReferrers(),
): Promise<AgentReport> {
  const range = resolveHourRange(request.dateFrom, request.dateTo);
  const limit = request.limit ?? DEFAULT_VIEWS_LIMIT;
  const offset = request.offset ?? 0;
  const { format } = request;
  const split = request.split === 'format';
  const withFormats = format !== undefined || split;
  const read = await readPage(
    db,
    projectId,
    range,
    { limit: limit + 1, offset },
    { report: 'agents', withFormats },
  );
  const stored = byAgent(read.formats);
  let everyAgent: AgentCounts[] = read.everyAgent;
  let rows: AgentCounts[] = read.rows;
  let totals = {
    verified: Number(read.totals.verified),
    unverified: Number(read.totals.unverified),
    total: Number(read.totals.total),
  };
  if (format !== undefined) {
    // Agents are few (every one is read for the operators): filtered and paged here.
    everyAgent = read.everyAgent
      .map((row) => inFormat(row, stored, format))
      .filter((row) => row.total > 0)
      .sort((a, b) => b.total - a.total || byteOrder(a.agent, b.agent));
    rows = everyAgent.slice(offset, offset + limit + 1);
    totals = { verified: 0, unverified: 0, total: 0 };
    for (const row of everyAgent) {
      totals.verified += row.verified;
      totals.unverified += row.unverified;
      totals.total += row.total;
    }
  }
  const totalSplit = { html: 0, markdown: 0, llms: 0, mcp: 0 };
  if (split) {
    for (const row of read.everyAgent) {
      const counts = splitOf(row, stored, format);
      for (const f of VIEW_FORMATS) totalSplit[f] += counts[f];
    }
  }
  const operators = crawlsAndReferrals(everyAgent, read.referred, catalog, referrers);
  return {
    totals: split ? { ...totals, formats: totalSplit } : totals,
    agents: rows.slice(0, limit).map((row) => ({
      agent: row.agent,
      ...catalog(row.agent),
      verified: Number(row.verified),
      unverified: Number(row.unverified),
      total: Number(row.total),
      ...(split
        ? {
            // A filtered row holds that format's views already.
            formats:
              format === undefined
                ? splitOf(row, stored, undefined)
                : { html: 0, markdown: 0, llms: 0, mcp: 0, [format]: Number(row.total) },
          }
        : {}),
    })),
    hasMore: rows.length > limit,
    operators,
    range: reportedRange(range),
  };
}
