// How a declared variable reads to a person: its value's form, its default and its meaning, for
// `docwright --help` and docs/configuration.md alike, so the two cannot say different things.
import { type TNumberOptions, type TSchema, Type } from 'typebox';
import { choices } from './read-environment.ts';
import type { VariableFacts } from './variables.ts';

const facts = (schema: TSchema) => schema as TSchema & VariableFacts & { description?: string };

/** The form of a value: `integer 0–65535`, `true or false`, `http(s) URL`...; '' for plain text. */
export function valueForm(schema: TSchema): string {
  if (Type.IsInteger(schema)) {
    const { minimum, maximum } = schema as typeof schema & TNumberOptions;
    return `integer ${minimum}–${maximum}`;
  }
  if (Type.IsBoolean(schema)) return 'true or false';
  if (Type.IsUnion(schema)) {
    const values = choices(schema);
    return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  }
  return facts(schema).written ?? '';
}

/** The default value, or what leaving the variable unset means; null when neither is declared. */
export function defaultText(schema: TSchema): string | null {
  if ('default' in schema) return String(schema.default);
  const { whenUnset } = facts(schema);
  return whenUnset === undefined ? null : `unset: ${whenUnset}`;
}

export function descriptionOf(schema: TSchema): string {
  return facts(schema).description ?? '';
}

/** One line of `docwright --help`: the meaning, then the value's form and the default. */
export function helpText(schema: TSchema): string {
  const fallback = defaultText(schema);
  const parts = [valueForm(schema), fallback === null ? '' : `default ${fallback}`].filter((p) => p !== '');
  return `${descriptionOf(schema)}${parts.length > 0 ? ` (${parts.join('; ')})` : ''}.`;
}
