// Prompt templates: {{path.to.value}} is replaced by that value of the run's context (strings as
// they are, other values as JSON); an unknown path becomes an empty string. No logic, no code:
// a template is data an admin writes, and rendering must never run anything.

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;

/** The longest text one placeholder may put into a prompt. */
const MAX_VALUE_CHARS = 20_000;
/** Values allowed longer: the diff, already cut to 40,000 characters between files, and its note. */
const LONGER_VALUES: Record<string, number> = { 'event.diff': 42_000 };

export function renderTemplate(template: string, context: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_whole, path: string) => {
    let value: unknown = context;
    for (const part of path.split('.')) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return '';
      value = (value as Record<string, unknown>)[part];
    }
    if (value === undefined || value === null) return '';
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const max = LONGER_VALUES[path] ?? MAX_VALUE_CHARS;
    return text.length > max ? `${text.slice(0, max)}… (cut)` : text;
  });
}
