// The curated list of AI agents (data/ai-agents.json): loading, validation, and the in-memory
// form the classifier uses. Extra lists in the ai.robots.txt format are merged in after it
// (robots-json.ts); curated entries come first, so they win on a shared token.

import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { AGENT_CATEGORIES, type AgentCategory } from './types.ts';

export const DEFAULT_AGENT_LIST_PATH = fileURLToPath(
  new URL('../../../../data/ai-agents.json', import.meta.url),
);

const CategorySchema = Type.Union(AGENT_CATEGORIES.map((category) => Type.Literal(category)));

const IpRangesSchema = Type.Object({
  url: Type.String({ minLength: 1 }),
  publishedAt: Type.String({ minLength: 1 }),
  prefixes: Type.Array(Type.String({ minLength: 1 })),
});

const AgentSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  tokens: Type.Array(Type.String({ minLength: 2 })),
  products: Type.Optional(Type.Array(Type.String({ minLength: 2, pattern: '^[A-Za-z0-9_.-]+$' }))),
  robotsTokens: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  operator: Type.String({ minLength: 1 }),
  category: CategorySchema,
  docs: Type.String({ minLength: 1 }),
  sources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  notes: Type.Optional(Type.String()),
  robotsOnly: Type.Optional(Type.Boolean()),
  signatureAgents: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  ipRanges: Type.Optional(IpRangesSchema),
});

const NotAiSchema = Type.Object({
  token: Type.String({ minLength: 1 }),
  reason: Type.String({ minLength: 1 }),
  sources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
});

const AgentListSchema = Type.Object({
  description: Type.Optional(Type.String()),
  compiledOn: Type.Optional(Type.String()),
  rangesSnapshot: Type.Optional(Type.String()),
  agents: Type.Array(AgentSchema),
  notAi: Type.Optional(Type.Array(NotAiSchema)),
});

/** A token other AI-agent lists carry that docwright deliberately counts as an ordinary bot. */
export interface NotAiToken {
  token: string;
  reason: string;
  sources: string[];
}

export interface AgentEntry {
  name: string;
  tokens: string[];
  /**
   * Names that are common words ("Cursor", "Code"): matched only as "Name/<version>" with these
   * exact capitals, in a user agent that is not a browser's.
   */
  products?: string[];
  /** robots.txt names of this agent that never appear in a user agent. */
  robotsTokens?: string[];
  operator: string;
  category: AgentCategory;
  docs: string;
  sources: string[];
  notes?: string;
  robotsOnly?: boolean;
  signatureAgents?: string[];
  ipRanges?: { url: string; publishedAt: string; prefixes: string[] };
}

/** An agent ready for matching: its published ranges compiled into a BlockList. */
export interface Agent extends AgentEntry {
  /** Where this entry came from: 'curated' or the path of an extra list. */
  origin: string;
  ranges: BlockList | null;
}

export class AgentListError extends Error {
  constructor(source: string, problems: string[]) {
    super(`Agent list ${source} is invalid: ${problems.join('; ')}`);
    this.name = 'AgentListError';
  }
}

function compileRanges(entry: AgentEntry, problems: string[]): BlockList | null {
  if (entry.ipRanges === undefined || entry.ipRanges.prefixes.length === 0) return null;
  const list = new BlockList();
  for (const prefix of entry.ipRanges.prefixes) {
    const [address, bits] = prefix.split('/');
    const family = isIP(address ?? '');
    const length = Number(bits);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || !Number.isInteger(length) || length < 0 || length > max) {
      problems.push(`${entry.name}: "${prefix}" is not an IPv4 or IPv6 CIDR prefix`);
      continue;
    }
    list.addSubnet(address!, length, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

export function toAgents(entries: readonly AgentEntry[], origin: string): Agent[] {
  const problems: string[] = [];
  const agents = entries.map((entry) => ({ ...entry, origin, ranges: compileRanges(entry, problems) }));
  if (problems.length > 0) throw new AgentListError(origin, problems);
  return agents;
}

/** A list in docwright's format: its agents and its deliberate exclusions. */
export interface AgentListDocument {
  agents: Agent[];
  notAi: NotAiToken[];
}

/** Validates a parsed curated list; throws AgentListError naming every problem found. */
export function parseAgentList(document: unknown, source: string): Agent[] {
  return parseAgentListDocument(document, source, 'curated').agents;
}

/** Validates a list in docwright's format; `origin` is recorded on every agent. */
export function parseAgentListDocument(document: unknown, source: string, origin: string): AgentListDocument {
  if (!Value.Check(AgentListSchema, document)) {
    const problems = [...Value.Errors(AgentListSchema, document)]
      .slice(0, 10)
      .map((error) => `${error.instancePath || '/'} ${error.message}`);
    throw new AgentListError(source, problems);
  }
  const entries = (document as { agents: AgentEntry[] }).agents;
  const problems: string[] = [];
  for (const entry of entries) {
    if (
      entry.tokens.length === 0 &&
      !entry.products?.length &&
      !entry.robotsOnly &&
      !entry.signatureAgents?.length
    ) {
      problems.push(`${entry.name}: no tokens, products or signature agents, so it can never match`);
    }
  }
  if (problems.length > 0) throw new AgentListError(source, problems);
  const notAi = (document as { notAi?: NotAiToken[] }).notAi ?? [];
  return { agents: toAgents(entries, origin), notAi };
}

export function loadAgentList(path: string = DEFAULT_AGENT_LIST_PATH): Agent[] {
  return loadAgentListDocument(path).agents;
}

export function loadAgentListDocument(path: string = DEFAULT_AGENT_LIST_PATH): AgentListDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AgentListError(path, [`cannot be read (${(error as Error).message})`]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new AgentListError(path, [`is not JSON (${(error as Error).message})`]);
  }
  return parseAgentListDocument(document, path, 'curated');
}
