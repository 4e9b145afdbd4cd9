// Finds agents whose name is a common word ("Cursor", "Code", "Trae") by the one form their
// fetchers send: the product and a version, "Cursor/1.7.2", with the exact capitals, in a user
// agent that carries no browser engine. The same names appear in editors' embedded browsers
// ("... Cursor/1.7.2 Chrome/132.0 Electron/34.3 Safari/537.36"), which show a page to a person
// and must stay human; a whole-word token match would count those as AI.

export interface ProductMatch<T> {
  token: string;
  value: T;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Browser engines and the browser shells built on them: any of these means a page shown to a person.
const BROWSER_ENGINE = /AppleWebKit\/|Gecko\/|Chrome\/|Safari\/|Firefox\/|Electron\/|Trident\//;

export function hasBrowserEngine(userAgent: string): boolean {
  return BROWSER_ENGINE.test(userAgent);
}

export class ProductMatcher<T> {
  readonly #pattern: RegExp | null;
  readonly #byProduct = new Map<string, T>();

  /** Entries earlier in the list win when one product is listed twice. */
  constructor(entries: readonly { product: string; value: T }[]) {
    for (const { product, value } of entries) {
      if (!this.#byProduct.has(product)) this.#byProduct.set(product, value);
    }
    const products = [...this.#byProduct.keys()].sort((a, b) => b.length - a.length);
    this.#pattern =
      products.length === 0
        ? null
        : new RegExp(`(?<![A-Za-z0-9_.-])(${products.map(escapeRegExp).join('|')})/[0-9]`);
  }

  match(userAgent: string): ProductMatch<T> | null {
    if (this.#pattern === null || userAgent === '') return null;
    const found = this.#pattern.exec(userAgent);
    if (found === null || hasBrowserEngine(userAgent)) return null;
    const token = found[1]!;
    return { token, value: this.#byProduct.get(token)! };
  }
}
