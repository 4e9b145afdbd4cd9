// Finds agent tokens in a user-agent string as whole words. A substring match misfires
// ("Spider" inside "Bytespider", "Code" inside "VSCode", "Cursor" in an editor's browser
// name), so a token only matches when neither neighbour is a letter, digit, '_' or '-':
// "GPTBot/1.3" matches GPTBot, "ClaudeBot-Extended" does not match ClaudeBot.
// A token ending in '-' is a prefix: only its start needs a boundary, because some fetchers glue
// an id to their name ("amazon-kendra-customer-id-78359eed…" for "amazon-kendra-customer-id-").
// Matching ignores case, as robots.txt does for user-agent tokens.

export interface TokenMatch<T> {
  token: string;
  value: T;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class TokenMatcher<T> {
  readonly #pattern: RegExp | null;
  readonly #byToken = new Map<string, { token: string; value: T; rank: number }>();

  /** Entries earlier in the list win when several tokens match one user agent. */
  constructor(entries: readonly { token: string; value: T }[]) {
    entries.forEach(({ token, value }, rank) => {
      const key = token.toLowerCase();
      if (!this.#byToken.has(key)) this.#byToken.set(key, { token, value, rank });
    });
    const tokens = [...this.#byToken.values()]
      .map((entry) => entry.token)
      .sort((a, b) => b.length - a.length);
    const alternatives = tokens.map((token) =>
      token.endsWith('-') ? escapeRegExp(token) : `${escapeRegExp(token)}(?![A-Za-z0-9_-])`,
    );
    this.#pattern =
      tokens.length === 0 ? null : new RegExp(`(?<![A-Za-z0-9_-])(?:${alternatives.join('|')})`, 'gi');
  }

  match(userAgent: string): TokenMatch<T> | null {
    if (this.#pattern === null || userAgent === '') return null;
    let best: { token: string; value: T; rank: number } | null = null;
    this.#pattern.lastIndex = 0;
    for (const found of userAgent.matchAll(this.#pattern)) {
      const entry = this.#byToken.get(found[0].toLowerCase());
      if (entry !== undefined && (best === null || entry.rank < best.rank)) best = entry;
    }
    return best === null ? null : { token: best.token, value: best.value };
  }
}
