// Turns a range split into the fixed parameter slots the level queries take. Each query reads a
// level with a fixed number of (from, to) pairs OR-ed together, so PostgreSQL plans each pair as an
// index range scan on (project_id, bucket); a slot with no span is NULL and matches nothing, and
// an unbounded end is ±Infinity (to_timestamp maps it to ±infinity).
import type { RangeSplit, Span } from './range-split.ts';

type Bound = number | null;

function slots(spans: readonly Span[], count: number, level: string): Bound[] {
  if (spans.length > count) throw new Error(`range split: ${spans.length} ${level} spans, at most ${count}`);
  const values: Bound[] = [];
  for (let i = 0; i < count; i++) {
    const span = spans[i];
    if (span === undefined) values.push(null, null);
    else values.push(span.from ?? Number.NEGATIVE_INFINITY, span.to ?? Number.POSITIVE_INFINITY);
  }
  return values;
}

/** 10 values: two hour spans, two day spans, one month span (for the path levels). */
export function pathSpanParams(split: RangeSplit): Bound[] {
  return [
    ...slots(split.hours, 2, 'hour'),
    ...slots(split.days, 2, 'day'),
    ...slots(split.months, 1, 'month'),
  ];
}

/** 6 values: two hour spans and one day span (levels without months: traffic, agents). */
export function hourDaySpanParams(split: RangeSplit): Bound[] {
  if (split.months.length > 0) throw new Error('range split: these levels keep no months');
  return [...slots(split.hours, 2, 'hour'), ...slots(split.days, 1, 'day')];
}

/** The SQL condition for column in slot pairs starting at parameter $first. */
export function inSpans(column: string, first: number, pairs: number): string {
  const parts: string[] = [];
  for (let i = 0; i < pairs; i++) {
    const from = first + 2 * i;
    parts.push(
      `(${column} >= to_timestamp($${from}::double precision) AND ${column} < to_timestamp($${from + 1}::double precision))`,
    );
  }
  return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
}
