// Progress of an import on stderr: a bar redrawn in place on a terminal, and otherwise (a log
// file, CI) one quiet line now and then, so that a long import shows it is alive without
// flooding whatever collects its output.

export interface ProgressTarget {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** Milliseconds between two redraws of the bar. */
  redrawMs?: number;
  /** Milliseconds between two lines when not on a terminal. */
  lineEveryMs?: number;
  now?: () => number;
}

const numberFormat = new Intl.NumberFormat('en-US');
const count = (n: number) => numberFormat.format(n);

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export class ImportProgress {
  readonly #target: ProgressTarget;
  readonly #redrawMs: number;
  readonly #lineEveryMs: number;
  readonly #now: () => number;
  #name = '';
  #total: number | null = null;
  #startedAt = 0;
  #lastDraw = 0;
  #drawn = false;

  constructor(target: ProgressTarget, options: ProgressOptions = {}) {
    this.#target = target;
    this.#redrawMs = options.redrawMs ?? 100;
    this.#lineEveryMs = options.lineEveryMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  start(name: string, totalBytes: number | null): void {
    this.#name = name;
    this.#total = totalBytes;
    this.#startedAt = this.#now();
    this.#lastDraw = this.#startedAt;
  }

  update(lines: number, bytesRead: number): void {
    const now = this.#now();
    const every = this.#target.isTTY ? this.#redrawMs : this.#lineEveryMs;
    if (now - this.#lastDraw < every) return;
    this.#lastDraw = now;
    const seconds = Math.max((now - this.#startedAt) / 1000, 0.001);
    const perSecond = count(Math.round(lines / seconds));
    const fraction = this.#total ? Math.min(bytesRead / this.#total, 1) : null;
    if (this.#target.isTTY) {
      const width = 12;
      const bar =
        fraction === null
          ? ''
          : `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '-')}] ${(fraction * 100).toFixed(0).padStart(3)}%  `;
      const sizes =
        fraction === null ? formatBytes(bytesRead) : `${formatBytes(bytesRead)}/${formatBytes(this.#total!)}`;
      const text = `${this.#name}  ${bar}${sizes}  ${count(lines)} lines  ${perSecond}/s`;
      const columns = this.#target.columns ?? 100;
      this.#target.write(`\r${text.slice(0, columns - 1).padEnd(columns - 1)}`);
      this.#drawn = true;
    } else {
      const percent =
        fraction === null ? '' : ` (${(fraction * 100).toFixed(0)}% of ${formatBytes(this.#total!)})`;
      this.#target.write(
        `import-logs: ${this.#name}: ${count(lines)} lines read${percent}, ${perSecond} lines/s\n`,
      );
    }
  }

  /** Clears the bar, so the summary starts on a clean line. */
  finish(): void {
    if (this.#drawn && this.#target.isTTY) {
      this.#target.write(`\r${' '.repeat((this.#target.columns ?? 100) - 1)}\r`);
    }
    this.#drawn = false;
  }
}
