// Checks a query string's raw text before Ajv coerces it. Ajv turns any JavaScript number
// literal into a number ("1e2" → 100, "0x10" → 16, " 5" → 5, "1.0" → 1) and reads a repeated
// parameter as an array; a client sending those almost certainly meant something else, so they
// are refused here with a message naming the parameter instead of being silently reinterpreted.
import type { FastifyRequest } from 'fastify';
import { httpErrors } from '../errors/request-errors.ts';

const DECIMAL_INTEGER = /^-?[0-9]+$/;

export interface QueryTextRules {
  /** Parameters that may appear at most once. */
  single: readonly string[];
  /** Integer parameters: must be written in decimal digits (range checks stay with the schema). */
  integers: readonly string[];
}

/**
 * The rules a route's querystring schema implies: every declared parameter at most once, and
 * integer parameters in decimal digits. Installed for every route by app.ts.
 */
export function queryTextRulesOf(querystring: unknown): QueryTextRules | null {
  const properties = (querystring as { properties?: Record<string, { type?: unknown }> } | undefined)
    ?.properties;
  if (!properties) return null;
  return {
    single: Object.keys(properties),
    integers: Object.entries(properties)
      .filter(([, schema]) => schema.type === 'integer')
      .map(([name]) => name),
  };
}

export function checkQueryText(rules: QueryTextRules) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown>;
    for (const name of rules.single) {
      if (Array.isArray(query[name])) {
        fail(name, `Query parameter "${name}" is given ${query[name].length} times; give it once.`);
      }
    }
    for (const name of rules.integers) {
      const value = query[name];
      if (typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
        const shown = JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
        fail(name, `Query parameter "${name}" must be an integer written in decimal digits; got ${shown}.`);
      }
    }
  };
}

function fail(name: string, message: string): never {
  throw httpErrors.invalid_parameter(message, { details: [{ location: 'query', name, message }] });
}
