// A code host's webhook headers as Fastify hands them over (lower-case names; a repeated header is
// an array, which no host sends for the headers read here, so it counts as absent).
export type Headers = Record<string, string | string[] | undefined>;

/** The header's single value, or null when it is missing or repeated. */
export function header(headers: Headers, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
}
