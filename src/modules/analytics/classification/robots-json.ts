// Extra agent lists in the ai.robots.txt project's robots.json format:
//   { "<token>": { "operator": ..., "respect": ..., "function": ..., "frequency": ...,
//                  "description": ... }, ... }
// The format has no category field; "function" is either one of the project's category labels
// ("AI Assistants", "AI Search Crawlers", ...) or free text. Labels map one to one; free text
// is read for a few plain keywords; anything else is `other_ai`.

import { readFileSync } from 'node:fs';
import { type Agent, type AgentEntry, AgentListError, type NotAiToken, toAgents } from './agent-list.ts';
import type { AgentCategory } from './types.ts';

const FUNCTION_LABELS: Record<string, AgentCategory> = {
  'ai assistants': 'assistant',
  'ai agents': 'assistant',
  'ai search crawlers': 'search',
  'ai coding agents': 'coding',
  'ai data scrapers': 'training',
  'ai data providers': 'other_ai',
  'undocumented ai agents': 'other_ai',
};

/**
 * Tokens that are ordinary words or product names appearing in unrelated user agents. A list may
 * name them, but matching them would count editors and browsers as AI, so they are skipped
 * (reported in `skipped`). The curated list never uses them.
 */
export const GENERIC_TOKENS = new Set(['spider', 'code', 'cursor', 'operator', 'trae', 'lcc', 'yak']);

export function categoryFromFunction(text: string | undefined): AgentCategory {
  if (!text) return 'other_ai';
  const label = FUNCTION_LABELS[text.trim().toLowerCase()];
  if (label) return label;
  const lower = text.toLowerCase();
  if (/\b(train|training|llm training)\b/.test(lower)) return 'training';
  if (/\b(user[- ]initiated|user prompts|user actions|assistant)\b/.test(lower)) return 'assistant';
  if (/\bsearch\b/.test(lower)) return 'search';
  return 'other_ai';
}

/** `[Name](https://...)` → `Name`; "Unclear at this time." → 'unknown'. */
function operatorName(text: unknown): string {
  if (typeof text !== 'string' || text.trim() === '' || /^unclear|^unknown/i.test(text.trim()))
    return 'unknown';
  const link = /^\[([^\]]+)\]\(([^)]+)\)/.exec(text.trim());
  return (link ? link[1]! : text.trim()).slice(0, 120);
}

function docsUrl(entry: Record<string, unknown>): string | null {
  for (const field of ['operator', 'respect', 'description']) {
    const value = entry[field];
    if (typeof value !== 'string') continue;
    const url = /https?:\/\/[^\s)\]]+/.exec(value);
    if (url) return url[0];
  }
  return null;
}

/**
 * "MistralAI-User/1.0" or "Brightbot 1.0" → the bare token: a version pinned in the key would
 * never match the next one.
 */
export function tokenOf(key: string): string {
  return key.replace(/[/ ][0-9][0-9.]*$/, '').trim();
}

/**
 * Every name the curated list answers to, lower-cased: entry names, tokens, products, robots.txt
 * names, and the tokens it deliberately counts as ordinary bots. A robots.json key among them is
 * covered by the curated list and never becomes an entry of its own.
 */
export function curatedNames(agents: readonly Agent[], notAi: readonly NotAiToken[]): Set<string> {
  const names = new Set<string>();
  for (const agent of agents) {
    for (const name of [
      agent.name,
      ...agent.tokens,
      ...(agent.products ?? []),
      ...(agent.robotsTokens ?? []),
    ])
      names.add(name.toLowerCase());
  }
  for (const entry of notAi) names.add(entry.token.toLowerCase());
  return names;
}

/** The keys of a robots.json document that the curated list does not cover. */
export function uncoveredKeys(document: Record<string, unknown>, covered: ReadonlySet<string>): string[] {
  return Object.keys(document).filter((key) => !covered.has(tokenOf(key).toLowerCase()));
}

export interface RobotsJsonLoad {
  agents: Agent[];
  skipped: { token: string; reason: string }[];
}

export function parseRobotsJson(document: unknown, source: string): RobotsJsonLoad {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new AgentListError(source, ['must be a JSON object mapping user-agent tokens to descriptions']);
  }
  const entries: AgentEntry[] = [];
  const skipped: RobotsJsonLoad['skipped'] = [];
  const seen = new Set<string>();
  for (const [key, raw] of Object.entries(document)) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new AgentListError(source, [`entry "${key}" must be an object`]);
    }
    const entry = raw as Record<string, unknown>;
    const token = tokenOf(key);
    if (token.length < 2) {
      skipped.push({ token: key, reason: 'too short to match as a word' });
      continue;
    }
    if (GENERIC_TOKENS.has(token.toLowerCase())) {
      skipped.push({ token: key, reason: 'generic word: would match unrelated user agents' });
      continue;
    }
    if (seen.has(token.toLowerCase())) continue;
    seen.add(token.toLowerCase());
    entries.push({
      name: token,
      tokens: [token],
      operator: operatorName(entry.operator),
      category: categoryFromFunction(typeof entry.function === 'string' ? entry.function : undefined),
      docs: docsUrl(entry) ?? source,
      sources: [source],
    });
  }
  return { agents: toAgents(entries, source), skipped };
}

export function loadRobotsJson(path: string): RobotsJsonLoad {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new AgentListError(path, [`cannot be read as JSON (${(error as Error).message})`]);
  }
  return parseRobotsJson(document, path);
}
