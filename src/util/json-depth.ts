// How deep a parsed JSON value nests. Recursive consumers after the parser (JSON.stringify in the
// error handler and the idempotency hash) overflow the stack on values nested thousands of levels
// deep, so the HTTP layer and the NDJSON ingest parser both refuse them with this one limit.

/** The deepest nesting of arrays and objects a JSON body may have (`[]` alone is 1 level). */
export const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects in `value` nest more than MAX_JSON_DEPTH levels. */
export function exceedsJsonDepth(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !withinDepth(value, MAX_JSON_DEPTH);
}

/** True when no array or object in `value` is nested more than `levels` deep (recursion is bounded by it). */
function withinDepth(value: object, levels: number): boolean {
  if (levels === 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && !withinDepth(item, levels - 1)) return false;
    }
    return true;
  }
  for (const key in value) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && !withinDepth(item, levels - 1)) return false;
  }
  return true;
}
