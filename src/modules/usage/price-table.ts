// The price table: what a model call costs, from the tokens the provider reported. Three layers,
// the first with a matching entry wins: the project's modelPrices setting, the deployment's file
// (DOCWRIGHT_MODEL_PRICES_FILE), then the built-in list (data/model-prices.json). Within a layer an
// exact model id wins over a pattern, and a longer pattern over a shorter one.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { type ModelPrice, ModelPriceSchema } from '../projects/index.ts';

const BUILT_IN_FILE = fileURLToPath(new URL('../../../data/model-prices.json', import.meta.url));

const PriceFileSchema = Type.Object({
  about: Type.Optional(Type.String()),
  prices: Type.Array(ModelPriceSchema, { maxItems: 10_000 }),
});

/** The tokens of one model call, as the AI SDK reports them. */
export interface ModelCallTokens {
  /** All input tokens, cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export class PriceTableError extends Error {}

/** The deployment's prices above the built-in ones; a project's settings go above both. */
export class PriceTable {
  private readonly layers: readonly (readonly ModelPrice[])[];

  constructor(layers: readonly (readonly ModelPrice[])[]) {
    this.layers = layers;
  }

  /** The table with these entries winning over its own (a project's modelPrices). */
  withOverrides(entries: readonly ModelPrice[] | undefined): PriceTable {
    return entries && entries.length > 0 ? new PriceTable([entries, ...this.layers]) : this;
  }

  /** The price of provider:model, or null when no layer has one. */
  priceOf(modelName: string): ModelPrice | null {
    const colon = modelName.indexOf(':');
    if (colon <= 0) return null;
    const provider = modelName.slice(0, colon);
    const modelId = modelName.slice(colon + 1);
    for (const layer of this.layers) {
      const found = bestMatch(layer, provider, modelId);
      if (found !== null) return found;
    }
    return null;
  }
}

function bestMatch(entries: readonly ModelPrice[], provider: string, modelId: string): ModelPrice | null {
  let best: ModelPrice | null = null;
  let bestScore = -1;
  for (const entry of entries) {
    if (entry.provider !== provider) continue;
    // Exact ids outrank every pattern; among patterns the one with more literal text is the
    // more specific.
    const score =
      entry.model === modelId
        ? Number.MAX_SAFE_INTEGER
        : matchesPattern(entry.model, modelId)
          ? entry.model.replaceAll('*', '').length
          : -1;
    if (score > bestScore) {
      best = entry;
      bestScore = score;
    }
  }
  return best;
}

/** A glob with * only: the literal pieces in order, anchored at both ends. */
function matchesPattern(pattern: string, text: string): boolean {
  if (!pattern.includes('*')) return false;
  const pieces = pattern.split('*');
  const first = pieces[0]!;
  const last = pieces.at(-1)!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last))
    return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** US dollars, kept to 10 decimals (the database's precision), so sums read back the same. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

/**
 * What the call cost: tokens outside the cache at the input price, cache reads and writes at
 * theirs (the input price when the entry has none), output at the output price.
 */
export function costOf(price: ModelPrice, tokens: ModelCallTokens): number {
  const uncached = Math.max(0, tokens.inputTokens - tokens.cacheReadTokens - tokens.cacheWriteTokens);
  const micro =
    uncached * price.inputPerMillion +
    tokens.cacheReadTokens * (price.cacheReadPerMillion ?? price.inputPerMillion) +
    tokens.cacheWriteTokens * (price.cacheWritePerMillion ?? price.inputPerMillion) +
    tokens.outputTokens * price.outputPerMillion;
  return roundUsd(micro / 1_000_000);
}

/** Reads and checks a price file; the message names the file and the first problem. */
export function readPriceFile(path: string): ModelPrice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PriceTableError(
      `The price file ${path} could not be read as JSON: ${(error as Error).message}`,
    );
  }
  if (!Value.Check(PriceFileSchema, parsed)) {
    const [first] = [...Value.Errors(PriceFileSchema, parsed)];
    const where = first?.instancePath || '/';
    throw new PriceTableError(
      `The price file ${path} is not a price table: at ${where}, ${first?.message ?? 'unexpected value'} (see docs/cost-and-budgets.md).`,
    );
  }
  return parsed.prices;
}

let builtIn: ModelPrice[] | null = null;

/** The built-in table (data/model-prices.json), with a deployment's file above it when named. */
export function loadPriceTable(deploymentFile: string | null = null): PriceTable {
  builtIn ??= readPriceFile(BUILT_IN_FILE);
  return new PriceTable(deploymentFile === null ? [builtIn] : [readPriceFile(deploymentFile), builtIn]);
}
