// Pieces of the jobs pages that are rendered both into the page and into the live stream's
// frames (the browser swaps them in), so a live update looks exactly like a reload.
import { type JobEventView, type JobView, knownJobEventType } from '../../../contract/index.ts';
import { count, firstLine, timeElement, utcText } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';

export function statusBadge(status: string, id?: string): SafeHtml {
  return html`<span class="badge badge-${status}"${id ? html` id="${id}"` : ''}>${status}</span>`;
}

export function prLinkElement(prLink: string | null, status: string): SafeHtml {
  if (prLink)
    return html`<a class="pr-link" href="${prLink}" rel="noreferrer noopener" target="_blank">Pull request<span class="visually-hidden"> (opens in a new tab)</span></a>`;
  if (status === 'active') return html`<span class="muted">pending</span>`;
  if (status === 'completed') return html`<span class="muted">no change</span>`;
  return html`<span class="muted">none</span>`;
}

/** One row of the jobs table (its id lets the live stream replace it). */
export function jobRow(projectId: string, job: JobView): SafeHtml {
  return html`<tr id="job-row-${job.id}" data-job-id="${job.id}" data-status="${job.status}">
  <td>${statusBadge(job.status)}</td>
  <td class="prompt-cell"><a href="/app/projects/${projectId}/jobs/${job.id}">${firstLine(job.prompt, 90)}</a>${
    job.error ? html`<br><span class="small muted">${job.error.code}</span>` : ''
  }<br class="narrow-only"><span class="narrow-only small muted">${timeElement(job.createdAt)}</span></td>
  <td class="wide-only">${timeElement(job.createdAt)}</td>
  <td>${prLinkElement(job.prLink, job.status)}</td>
</tr>`;
}

/** The status block at the top of a job's page. */
export function jobSummary(job: JobView): SafeHtml {
  return html`<dl class="facts">
  <div><dt>Status</dt><dd>${statusBadge(job.status, 'job-status')}</dd></div>
  <div><dt>Pull request</dt><dd id="job-pr">${prLinkElement(job.prLink, job.status)}</dd></div>
  <div><dt>Created</dt><dd>${timeElement(job.createdAt)}</dd></div>
  <div><dt>Updated</dt><dd>${timeElement(job.updatedAt)}</dd></div>
  <div><dt>Model</dt><dd>${job.model || html`<span class="muted">none configured</span>`}</dd></div>
  <div><dt>Branch</dt><dd>${job.branch ? html`<code>${job.branch}</code>` : html`<span class="muted">not yet</span>`}</dd></div>
  ${
    job.usage
      ? html`<div><dt>Usage</dt><dd>${count(job.usage.steps)} steps, ${count(job.usage.inputTokens)} input and ${count(job.usage.outputTokens)} output tokens</dd></div>`
      : ''
  }
</dl>
${job.error ? html`<div class="error-box" role="alert"><p><strong>${job.error.code}</strong>: ${job.error.message}</p></div>` : ''}
${job.summary ? html`<h2>Summary</h2><p class="summary">${job.summary}</p>` : ''}`;
}

/** What an event says, in words. */
export function describeEvent(event: JobEventView): string {
  const d = event.data as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  // Narrowed to the contract's list, so a case naming no event type fails to compile.
  switch (knownJobEventType(event.type)) {
    case 'created':
      return 'Job created.';
    case 'started':
      return d.attempt && Number(d.attempt) > 1 ? `Started (attempt ${text(d.attempt)}).` : 'Started.';
    case 'workspace':
      return `Workspace ready on branch ${text(d.branch)} from ${text(d.base)}.`;
    case 'tool_call': {
      const target = [text(d.path), d.to ? `→ ${text(d.to)}` : ''].filter(Boolean).join(' ');
      const outcome = d.ok === false ? ` refused: ${text(d.error)}` : '';
      return `${text(d.tool)}${target ? ` ${target}` : ''}${outcome}`;
    }
    case 'step':
      return `Model step ${text(d.step)} (${Number(d.tools ?? 0) === 1 ? '1 tool call' : `${text(d.tools) || '0'} tool calls`}).`;
    case 'model_retry':
      return 'The model provider asked to retry; retrying.';
    case 'committed':
      return `Committed ${text(d.commit).slice(0, 12)}.`;
    case 'pushed':
      return `Pushed branch ${text(d.branch)}.`;
    case 'pull_request':
      return d.reused ? `Updated pull request ${text(d.url)}.` : `Opened pull request ${text(d.url)}.`;
    case 'completed':
      return 'Completed.';
    case 'ci_status':
      if (d.state !== 'watching') return `CI ${text(d.state).replace('_', ' ')}: ${text(d.outcome)}`;
      if (d.observed === 'error') return `CI could not be read: ${text(d.error)}`;
      return d.observed
        ? `CI ${text(d.observed)} on ${text(d.headSha).slice(0, 12)}.`
        : `Watching CI on ${text(d.headSha).slice(0, 12)}.`;
    case 'failed':
      return `Failed: ${text(d.code)}${d.message ? `: ${text(d.message)}` : ''}`;
    case 'message':
      return 'Follow-up received.';
    case 'archived':
      return 'Archived.';
    case 'released':
      return 'Released by its worker; it will be picked up again.';
    default:
      return event.type.replaceAll('_', ' ');
  }
}

export function eventItem(event: JobEventView): SafeHtml {
  const failed =
    event.type === 'failed' || (event.type === 'tool_call' && (event.data as { ok?: unknown }).ok === false);
  return html`<li class="event event-${event.type}${failed ? ' event-bad' : ''}" data-event-id="${event.id}">
  <time datetime="${event.createdAt}">${utcText(event.createdAt).slice(11)}</time>
  <span class="event-type">${event.type}</span>
  <span class="event-text">${describeEvent(event)}</span>
</li>`;
}

/** The diff, one span per line so additions and removals can be coloured. */
export function diffBlock(diff: { diff: string; truncated: boolean } | null, why: string): SafeHtml {
  if (diff === null) return html`<p class="muted" id="diff-missing">${why}</p>`;
  const lines = diff.diff.replace(/\n$/, '').split('\n');
  const kind = (line: string) =>
    line.startsWith('+++') || line.startsWith('---')
      ? 'file'
      : line.startsWith('+')
        ? 'add'
        : line.startsWith('-')
          ? 'del'
          : line.startsWith('@@')
            ? 'hunk'
            : line.startsWith('diff ')
              ? 'file'
              : 'ctx';
  return html`<pre class="diff" tabindex="0" aria-label="Diff of the job's changes"><code>${lines.map(
    (l) => html`<span class="diff-${kind(l)}">${l}</span>\n`,
  )}</code></pre>${diff.truncated ? html`<p class="muted">The diff was cut; the branch has all of it.</p>` : ''}`;
}
