// Whether a user agent the agent list does not name looks automated, and under which product
// token to count it: the raw material of the unknown-agents report, so a new AI agent shows up
// the day it first fetches a page. Worked out once per distinct user-agent string (the verdict
// cache), never per record.
//
// Looks automated, in this order:
//  - isbot recognises it (a bot or HTTP library with no list entry)        → isbot
//  - it names itself with words automated clients use (bot, agent, AI,
//    GPT, LLM, crawler, spider, fetcher, scraper...)                       → automated_words
//  - it carries no browser engine token (AppleWebKit/, Gecko/, ...)       → no_browser_engine
// A browser-shaped string with none of these words is a person, and is not counted.

import { hasBrowserEngine } from './product-matcher.ts';

export type UnrecognizedReason = 'isbot' | 'automated_words' | 'no_browser_engine';

export interface UnrecognizedAgent {
  /** The normalised product token ("NovelAgent"), at most 64 characters. */
  product: string;
  reason: UnrecognizedReason;
  /** The user agent itself, at most 256 characters: an example for the report. */
  example: string;
}

const AUTOMATED_WORDS =
  /bot|agent|crawl|spider|fetch|scrap|gpt|llm|headless|puppeteer|playwright|selenium|\bai\b/i;

// "Name/1.2" or "Name" as the first product, or inside "(compatible; Name/1.2; ...)".
const COMPATIBLE = /\(compatible;\s*([^;/)\s][^;/)]*?)(?:\/[^;)]*)?\s*[;)]/i;
const BOT_NAME =
  /([A-Za-z][A-Za-z0-9._-]*?(?:bot|spider|crawler|fetcher|scraper|agent|checker|monitor|preview))(?=[/\s;)+,]|$)/i;
const FIRST_PRODUCT = /^([^\s/;()]+)/;
const PRODUCTS = /([A-Za-z][A-Za-z0-9._-]*)\/[0-9A-Za-z.]+/g;
// The products of browser user agents: never what an automated client names itself by.
const BROWSER_PRODUCTS = new Set([
  'mozilla',
  'applewebkit',
  'gecko',
  'chrome',
  'chromium',
  'safari',
  'firefox',
  'version',
  'mobile',
  'edg',
  'opr',
  'electron',
  'headlesschrome',
  'khtml',
  'trident',
]);

/** The product token a user agent names itself by, without its version. */
export function productToken(userAgent: string): string {
  const named = BOT_NAME.exec(userAgent);
  if (named) return named[1]!.slice(0, 64);
  const compatible = COMPATIBLE.exec(userAgent);
  if (compatible && compatible[1]!.toLowerCase() !== 'mozilla') return compatible[1]!.trim().slice(0, 64);
  const first = FIRST_PRODUCT.exec(userAgent);
  if (first && first[1]!.toLowerCase() !== 'mozilla') return first[1]!.slice(0, 64);
  for (const [, product] of userAgent.matchAll(PRODUCTS)) {
    if (!BROWSER_PRODUCTS.has(product!.toLowerCase())) return product!.slice(0, 64);
  }
  return 'unknown';
}

/**
 * The unrecognized agent a string names, or null when it is empty, named by the list, or
 * browser-shaped without automated words.
 */
export function unrecognizedAgent(userAgent: string, isBot: boolean): UnrecognizedAgent | null {
  if (userAgent === '' || userAgent === '-') return null;
  const reason: UnrecognizedReason | null = isBot
    ? 'isbot'
    : AUTOMATED_WORDS.test(userAgent)
      ? 'automated_words'
      : hasBrowserEngine(userAgent)
        ? null
        : 'no_browser_engine';
  if (reason === null) return null;
  return { product: productToken(userAgent), reason, example: userAgent.slice(0, 256) };
}
