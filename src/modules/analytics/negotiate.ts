// Which format an export answers in, from the Accept header (RFC 9110 section 12.5.1): CSV when
// the client weighs text/csv above JSON, else JSON, the contract's format. JSON wins ties and
// every header that names neither (no 406: an export never fails over Accept).

export type ExportFormat = 'json' | 'csv';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parse(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [mediaType, ...params] = part.split(';');
    const [type, subtype] = (mediaType ?? '').trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() !== 'q' || value === undefined) continue;
      const parsed = Number(value.trim());
      q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The weight of a type: its most specific matching range decides (RFC 9110), 0 when none. */
function weight(ranges: readonly MediaRange[], type: string, subtype: string): number {
  let best: { specificity: number; q: number } | null = null;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (best === null || specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

export function exportFormat(accept: string | undefined): ExportFormat {
  if (typeof accept !== 'string' || accept.trim() === '') return 'json';
  const ranges = parse(accept);
  const csv = weight(ranges, 'text', 'csv');
  return csv > 0 && csv > weight(ranges, 'application', 'json') ? 'csv' : 'json';
}
