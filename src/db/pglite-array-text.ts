// Array parameters on PGlite as PostgreSQL array text, written by one loop. PGlite's own array
// serializer sends each element through its element serializer, two regular-expression
// replacements and a string template, then joins them: for the seven 1,000-element arrays of a
// merge's rollup upsert, about 1.0-1.3 ms of the server's thread, against 0.3-0.4 ms for this
// (docs/ingestion.md, "PGlite's statements"). The text is the same as PGlite's: every element
// quoted, `"` and `\` escaped, null and undefined written as an unquoted null.
import type { PGlite } from '@electric-sql/pglite';

type Serializer = (value: unknown) => string;

/** Array type id → element type id, for the element types whose serializer returns a string as it is. */
const ARRAYS_OF_STRING_SAFE_ELEMENTS: ReadonlyArray<readonly [array: number, element: number]> = [
  [1009, 25], // text[]
  [1016, 20], // bigint[]
  [1007, 23], // int[]
  [1022, 701], // double precision[]
  [1185, 1184], // timestamptz[]
];

const NEEDS_ESCAPE = /["\\]/;

/**
 * An array serializer for one element type. Strings skip the element serializer (it would return
 * them unchanged); anything else goes through it, as in PGlite. Nested arrays (a first element
 * that is an array) are left to PGlite's serializer.
 */
export function arrayTextSerializer(element: () => Serializer | undefined, fallback: Serializer): Serializer {
  return (value: unknown): string => {
    if (!Array.isArray(value) || Array.isArray(value[0])) return fallback(value);
    const serialize = element();
    let text = '{';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i > 0) text += ',';
      if (item === null || item === undefined) {
        text += 'null';
        continue;
      }
      let itemText =
        typeof item === 'string'
          ? item
          : serialize !== undefined
            ? serialize(item)
            : (item as object).toString();
      if (NEEDS_ESCAPE.test(itemText)) itemText = itemText.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
      text += `"${itemText}"`;
    }
    return `${text}}`;
  };
}

/** Replaces PGlite's serializers of the array types the project's statements send. */
export function useArrayTextSerializers(pg: Pick<PGlite, 'serializers'>): void {
  for (const [arrayOid, elementOid] of ARRAYS_OF_STRING_SAFE_ELEMENTS) {
    const fallback = pg.serializers[arrayOid];
    if (fallback === undefined) continue;
    pg.serializers[arrayOid] = arrayTextSerializer(() => pg.serializers[elementOid], fallback);
  }
}
