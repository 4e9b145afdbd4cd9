// Percentiles and the `figure:` lines every benchmark ends with, so runs can be compared.

/** Nearest-rank percentile (p in 0..100) of the samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toString();
  if (Math.abs(value) >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/** `figure: NAME = VALUE UNIT; baseline = VALUE UNIT; ratio = R` (baseline none when there is none). */
export function figureLine(name: string, value: number, unit: string, baseline: number | null): string {
  const base = baseline === null ? 'none' : `${formatValue(baseline)} ${unit}`;
  const ratio = baseline === null ? 'none' : (value / baseline).toPrecision(3);
  return `figure: ${name} = ${formatValue(value)} ${unit}; baseline = ${base}; ratio = ${ratio}`;
}

/** Milliseconds taken by fn. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
