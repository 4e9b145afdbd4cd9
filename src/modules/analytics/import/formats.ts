// Chooses how the lines of a log are read: --format, --preset and --map as the CLI gives them.
import { parseCombinedLine } from './combined-format.ts';
import {
  type FieldMap,
  IDENTITY_MAP,
  parseJsonLine,
  RECORD_FIELDS,
  type RecordField,
} from './json-format.ts';
import type { ParsedLine } from './parsed-line.ts';
import { PRESETS } from './presets.ts';

export const FORMATS = ['combined', 'json'] as const;
export type LogFormat = (typeof FORMATS)[number];

export interface FormatChoice {
  /** Omitted: decided per log from its first line that is not blank ("{" → json). */
  format?: LogFormat;
  preset?: string;
  /** field=key pairs from --map, applied over the preset. */
  map?: FieldMap;
}

export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormatError';
  }
}

/** "userAgent=ClientRequestUserAgent" → ['userAgent', 'ClientRequestUserAgent']. */
export function parseMapping(text: string): [RecordField, string] {
  const at = text.indexOf('=');
  const field = at > 0 ? text.slice(0, at).trim() : '';
  const key = at > 0 ? text.slice(at + 1).trim() : '';
  if (field === '' || key === '') {
    throw new FormatError(`--map takes field=key (e.g. userAgent=ClientRequestUserAgent); got "${text}".`);
  }
  if (!(RECORD_FIELDS as readonly string[]).includes(field)) {
    throw new FormatError(`--map: unknown field "${field}"; the fields are ${RECORD_FIELDS.join(', ')}.`);
  }
  return [field as RecordField, key];
}

/** A function reading one line of one log; make a new one per log (auto-detection is per log). */
export function lineParserFactory(choice: FormatChoice): () => (line: string) => ParsedLine {
  if (choice.preset !== undefined && !(choice.preset in PRESETS)) {
    throw new FormatError(
      `--preset: unknown preset "${choice.preset}"; known: ${Object.keys(PRESETS).join(', ')}.`,
    );
  }
  const jsonImplied = choice.preset !== undefined || Object.keys(choice.map ?? {}).length > 0;
  if (choice.format === 'combined' && jsonImplied) {
    throw new FormatError(
      '--preset and --map apply to JSON logs; they cannot be used with --format combined.',
    );
  }
  const map = {
    ...IDENTITY_MAP,
    ...(choice.preset !== undefined ? PRESETS[choice.preset]!.map : {}),
    ...choice.map,
  } as Required<FieldMap>;
  const json = (line: string) => parseJsonLine(line, map);
  const format = choice.format ?? (jsonImplied ? 'json' : undefined);
  if (format === 'json') return () => json;
  if (format === 'combined') return () => parseCombinedLine;
  return () => {
    let chosen: ((line: string) => ParsedLine) | null = null;
    return (line) => {
      chosen ??= line.trimStart().startsWith('{') ? json : parseCombinedLine;
      return chosen(line);
    };
  };
}
