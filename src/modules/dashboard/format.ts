// How values read on the pages: times in UTC with a machine-readable datetime, counts with
// thousands separators.
import { html, type SafeHtml } from './html.ts';

export function utcText(date: Date | string): string {
  const d = typeof date === 'string' ? new Date(date) : date;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function timeElement(date: Date | string | null, empty = '—'): SafeHtml {
  if (date === null) return html`<span class="muted">${empty}</span>`;
  const d = typeof date === 'string' ? new Date(date) : date;
  return html`<time datetime="${d.toISOString()}">${utcText(d)}</time>`;
}

const NUMBER = new Intl.NumberFormat('en-US');
export function count(n: number): string {
  return NUMBER.format(n);
}

/** The first line of a text, cut at max characters with an ellipsis. */
export function firstLine(text: string, max = 120): string {
  const line = text.split('\n', 1)[0]!.trim();
  return [...line].length > max ? `${[...line].slice(0, max - 1).join('')}…` : line;
}
