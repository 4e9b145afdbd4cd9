// What a user-agent string alone says about its client, computed once per distinct string and
// cached (bounded LRU): the AI agent it names (whole-word token from the agent list, or a
// common-word product in its exact "Name/<version>" form outside browsers), whether
// isbot recognises it as a bot, whether it is a generic HTTP library, whether it looks like a
// browser. Per-record facts (Markdown path, Accept header, IP, signatures) are combined with it
// afterwards, so the cache stays valid for every record carrying the same string.

import { isbot, isbotMatch } from 'isbot';
import type { Agent } from './agent-list.ts';
import { LruCache } from './lru-cache.ts';
import { ProductMatcher } from './product-matcher.ts';
import { TokenMatcher } from './token-matcher.ts';
import { type UnrecognizedAgent, unrecognizedAgent } from './unrecognized-agent.ts';

export interface UserAgentVerdict {
  empty: boolean;
  /** The AI agent the string names, and the token that matched. */
  agent: Agent | null;
  token: string | null;
  /** A name for a non-AI bot (isbot recognised it), else null. */
  bot: string | null;
  /** curl, python-requests, axios, Go-http-client and the like: scripts, not named crawlers. */
  genericClient: boolean;
  browser: boolean;
  /** Not named by the list but automated-looking: counted for the unknown-agents report. */
  unrecognized: UnrecognizedAgent | null;
}

// Libraries and command-line clients, recognised by their product token at the start.
const GENERIC_CLIENT =
  /^(?:curl|wget|python-requests|python-urllib|python-httpx|httpx|aiohttp|go-http-client|node-fetch|node|undici|axios|got|ky|okhttp|java|apache-httpclient|libwww-perl|lwp::simple|ruby|faraday|httpie|deno|bun|reqwest|dart|postmanruntime|insomnia|guzzlehttp|php|powershell|winhttp|restsharp|http\.rb|hackney|req)(?:[/\s;(]|$)/i;

const BROWSER =
  /^Mozilla\/5\.0 \([^)]*\) (?:AppleWebKit\/|Gecko\/)|^Mozilla\/5\.0 \([^)]*(?:Trident\/|rv:)[^)]*\)/;

// Bot names usually end in bot/spider/crawler/fetcher...: "Googlebot", "bingbot", "UptimeRobot".
const BOT_NAME =
  /([A-Za-z][A-Za-z0-9._-]*?(?:bot|spider|crawler|fetcher|scraper|checker|monitor|preview))(?=[/\s;)+,]|$)/i;
const PRODUCT = /^([^\s/;()]+)/;

export function botName(userAgent: string): string {
  const named = BOT_NAME.exec(userAgent);
  if (named) return named[1]!.slice(0, 64);
  const product = PRODUCT.exec(userAgent);
  if (product && product[1]!.toLowerCase() !== 'mozilla') return product[1]!.slice(0, 64);
  return (isbotMatch(userAgent) ?? 'unknown-bot').slice(0, 64);
}

export class UserAgentClassifier {
  readonly #matcher: TokenMatcher<Agent>;
  readonly #products: ProductMatcher<Agent>;
  readonly #cache: LruCache<string, UserAgentVerdict>;
  /** Distinct strings classified so far (cache misses); the benchmark reads it. */
  misses = 0;

  constructor(agents: readonly Agent[], cacheSize = 10_000) {
    this.#matcher = new TokenMatcher(
      agents.flatMap((agent) => agent.tokens.map((token) => ({ token, value: agent }))),
    );
    this.#products = new ProductMatcher(
      agents.flatMap((agent) => (agent.products ?? []).map((product) => ({ product, value: agent }))),
    );
    this.#cache = new LruCache(cacheSize);
  }

  classify(userAgent: string | undefined): UserAgentVerdict {
    // Records are validated upstream; a non-string here is treated as no user agent, not a crash.
    const key = typeof userAgent === 'string' ? userAgent : '';
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    this.misses++;
    const verdict = this.#compute(key.trim());
    this.#cache.set(key, verdict);
    return verdict;
  }

  #compute(userAgent: string): UserAgentVerdict {
    if (userAgent === '' || userAgent === '-') {
      return {
        empty: true,
        agent: null,
        token: null,
        bot: null,
        genericClient: false,
        browser: false,
        unrecognized: null,
      };
    }
    const match = this.#matcher.match(userAgent) ?? this.#products.match(userAgent);
    const genericClient = GENERIC_CLIENT.test(userAgent);
    const robot = isbot(userAgent);
    return {
      empty: false,
      agent: match?.value ?? null,
      token: match?.token ?? null,
      bot: robot || genericClient ? botName(userAgent) : null,
      genericClient,
      browser: !robot && !genericClient && BROWSER.test(userAgent),
      unrecognized: match === null ? unrecognizedAgent(userAgent, robot || genericClient) : null,
    };
  }
}
