// The docs checks on a job's page: the last check over the job's whole change (its newest
// docs_checks event not narrowed to paths), with each problem the job introduced.
import type { JobEventView } from '../../../contract/index.ts';
import { html, type SafeHtml } from '../html.ts';

interface ProblemData {
  code?: unknown;
  file?: unknown;
  line?: unknown;
  message?: unknown;
  hint?: unknown;
}

export function docsChecksBlock(events: readonly JobEventView[]): SafeHtml | '' {
  const last = [...events].reverse().find((e) => e.type === 'docs_checks' && e.data.scope === null);
  if (!last) return '';
  const data = last.data as Record<string, unknown>;
  const count = typeof data.introducedCount === 'number' ? data.introducedCount : 0;
  const problems = (Array.isArray(data.introduced) ? data.introduced : []) as ProblemData[];
  const where = (p: ProblemData) =>
    typeof p.line === 'number' ? `${String(p.file)}:${p.line}` : String(p.file);
  return html`<section aria-labelledby="checks-title" id="job-checks">
  <h2 id="checks-title">Docs checks</h2>
  <p>${String(data.framework ?? 'markdown')} · ${
    count === 0
      ? 'passed: the job introduced no problem'
      : `${count} problem${count === 1 ? '' : 's'} introduced (${data.mode === 'block' ? 'blocked' : 'pull request opened as a draft'})`
  } · ${String(data.preexisting ?? 0)} already there before the job</p>
  ${
    problems.length > 0
      ? html`<ul class="checks">${problems.map(
          (p) =>
            html`<li><code>${where(p)}</code> <strong>${String(p.code)}</strong>: ${String(p.message)}<br><span class="muted small">${String(p.hint)}</span></li>`,
        )}</ul>`
      : ''
  }
</section>`;
}
