// Reads environment variables through their declarations (src/config/variables.ts): each value
// is trimmed (blank counts as unset), given its default when unset, converted to the declared
// type and checked against it. Every problem is collected, each naming its variable, so that an
// operator fixes them all in one go; a secret's value is never echoed.
import {
  type Static,
  type TNumberOptions,
  type TObject,
  type TProperties,
  type TSchema,
  Type,
} from 'typebox';
import { Value } from 'typebox/value';
import type { VariableFacts } from './variables.ts';

export type Env = Record<string, string | undefined>;

export interface EnvironmentReading<Variables extends TProperties> {
  values: Static<TObject<Variables>>;
  problems: string[];
  /** The variables given a value, valid or not (a bad one is in `problems`, not in `values`). */
  given: Set<string>;
}

export function readEnvironment<Variables extends TProperties>(
  variables: Variables,
  env: Env,
): EnvironmentReading<Variables> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  const given = new Set<string>();
  for (const [name, schema] of Object.entries(variables)) {
    const raw = env[name]?.trim() || undefined;
    if (raw === undefined) {
      if ('default' in schema) values[name] = schema.default;
      continue;
    }
    given.add(name);
    const value = convert(schema, raw);
    if (Value.Check(schema, value)) {
      values[name] = value;
      continue;
    }
    problems.push(problem(name, schema, raw, value));
    // A bad value's default stands in for it, so that what is derived from it (PORT in the public
    // URL) is not reported as a second problem.
    if ('default' in schema) values[name] = schema.default;
  }
  return { values: values as Static<TObject<Variables>>, problems, given };
}

/** Environment values are strings: integers, booleans and level names are written as such. */
function convert(schema: TSchema, raw: string): unknown {
  if (Type.IsInteger(schema)) return /^\d+$/.test(raw) ? Number(raw) : raw;
  if (Type.IsBoolean(schema)) {
    const lower = raw.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    return raw;
  }
  if (Type.IsUnion(schema)) return raw.toLowerCase();
  return raw;
}

function problem(name: string, schema: TSchema, raw: string, value: unknown): string {
  const got = (schema as VariableFacts).secret ? '.' : `; got "${raw}".`;
  if (Type.IsInteger(schema)) {
    const { minimum, maximum } = schema as typeof schema & TNumberOptions;
    return `${name} must be an integer from ${minimum} to ${maximum}${got}`;
  }
  if (Type.IsBoolean(schema)) return `${name} must be true or false${got}`;
  if (Type.IsUnion(schema)) return `${name} must be one of ${choices(schema).join(', ')}${got}`;
  // A refinement's error text completes the sentence ("must be an http(s) URL").
  const [error] = Value.Errors(schema, value);
  return `${name} ${error?.message ?? 'is not valid'}${got}`;
}

/** The literal values a union of literals allows (LOG_LEVEL's levels). */
export function choices(schema: TSchema): string[] {
  if (!Type.IsUnion(schema)) return [];
  return schema.anyOf.filter((member) => Type.IsLiteral(member)).map((member) => String(member.const));
}
