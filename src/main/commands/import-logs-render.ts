// The summary of `docwright import-logs` for people: per log, what was read and what it counted.

import type { SourceSummary } from '../../modules/analytics/index.ts';
import { totalDrops } from '../../modules/analytics/index.ts';
import type { ImportLogsResult } from './import-logs-run.ts';

const n = (value: number) => new Intl.NumberFormat('en-US').format(value);
const plural = (value: number, word: string) => `${n(value)} ${word}${value === 1 ? '' : 's'}`;

function renderSource(s: SourceSummary): string[] {
  const name = s.source === '-' ? '(stdin)' : s.source;
  if (s.status === 'failed' && s.lines === 0 && s.fingerprint === null) {
    return [`${name}: FAILED: ${s.error?.message ?? 'unknown error'}`];
  }
  const out: string[] = [];
  const head =
    s.status === 'empty'
      ? 'empty (no complete line yet)'
      : s.alreadyImported > 0
        ? `${plural(s.lines, 'line')}, ${n(s.alreadyImported)} already imported before, ${n(s.newLines)} new`
        : `${plural(s.lines, 'line')}, ${n(s.newLines)} new`;
  out.push(`${name}: ${head}${s.status === 'up_to_date' ? ' (nothing new to import)' : ''}`);
  if (s.newLines > 0) {
    out.push(
      `  accepted   ${n(s.accepted)} (human ${n(s.byClass.human)}, ai ${n(s.byClass.ai)}, bot ${n(s.byClass.bot)})`,
    );
    const drops = Object.entries(s.dropped).filter(([, c]) => c! > 0);
    const droppedTotal = drops.reduce((sum, [, c]) => sum + c!, 0);
    out.push(
      `  dropped    ${n(droppedTotal)}${drops.length ? ` (${drops.map(([r, c]) => `${r} ${n(c!)}`).join(', ')})` : ''}`,
    );
    if (s.blank > 0) out.push(`  blank      ${n(s.blank)}`);
    out.push(`  malformed  ${n(s.malformed)}`);
    for (const m of s.malformedLines) out.push(`    line ${m.line}: ${m.reason}`);
    if (s.malformed > s.malformedLines.length)
      out.push(`    ... and ${n(s.malformed - s.malformedLines.length)} more`);
  }
  if (s.heldBackLastLine)
    out.push('  the last line has no newline yet (still being written?): it is left for the next import');
  if (s.status === 'failed') out.push(`  FAILED: ${s.error?.message ?? 'unknown error'}`);
  return out;
}

export function renderImportSummary(result: ImportLogsResult): string {
  const lines = result.sources.flatMap(renderSource);
  const sum = (pick: (s: SourceSummary) => number) => result.sources.reduce((t, s) => t + pick(s), 0);
  if (result.sources.length > 1) {
    const drops = Object.entries(totalDrops(result.sources)).filter(([, c]) => c > 0);
    lines.push(
      `total: ${plural(
        sum((s) => s.newLines),
        'new line',
      )}, accepted ${n(sum((s) => s.accepted))}, ` +
        `dropped ${n(drops.reduce((t, [, c]) => t + c, 0))}, malformed ${n(sum((s) => s.malformed))}`,
    );
  }
  const failed = result.sources.filter((s) => s.status === 'failed').length;
  lines.push(
    `Counted into project ${result.projectId} ${result.via}.${failed ? ` ${plural(failed, 'log')} failed.` : ''}`,
  );
  return lines.join('\n');
}
