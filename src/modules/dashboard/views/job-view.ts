// One job: prompt and follow-ups, status, pull request, the events timeline, the diff, and the
// actions its status allows. job-live.js keeps it current while the job runs.
import type { JobEventView, JobView } from '../../../contract/index.ts';
import type { Project } from '../../projects/index.ts';
import { firstLine } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { type FieldErrors, textareaField } from './fields.ts';
import { docsChecksBlock } from './job-checks.ts';
import { diffBlock, eventItem, jobSummary } from './job-parts.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';

export interface JobPage {
  job: JobView;
  prompts: string[];
  events: JobEventView[];
  diff: { diff: string; truncated: boolean } | null;
  diffWhy: string;
  form?: { prompt?: string; error?: string | null; errors?: FieldErrors };
  actionError?: string | null;
}

export function jobActions(
  frame: { csrfToken: string },
  projectId: string,
  job: JobView,
  form: JobPage['form'] = {},
): SafeHtml {
  const base = `/app/projects/${projectId}/jobs/${job.id}`;
  const finished = job.status === 'completed' || job.status === 'failed';
  return html`<div class="actions">
  ${job.status === 'active' ? html`<form method="post" action="${base}/cancel" class="inline">${csrfField(frame.csrfToken)}<button type="submit" class="danger">Cancel job</button></form>` : ''}
  ${finished ? html`<form method="post" action="${base}/archive" class="inline">${csrfField(frame.csrfToken)}<button type="submit">Archive job</button></form>` : ''}
</div>
${
  finished
    ? html`<form method="post" action="${base}/message" class="follow-up">
  ${csrfField(frame.csrfToken)}
  ${errorBox(form.error)}
  ${textareaField({ name: 'prompt', id: 'follow-up', label: 'Follow-up', value: form.prompt ?? '', required: true, rows: 3, errors: form.errors ?? {}, hint: 'The agent continues on the same branch and updates the same pull request.' })}
  <button type="submit" class="primary">Send follow-up</button>
</form>`
    : ''
}`;
}

export function jobPage(frame: PageFrame, project: Project, data: JobPage): SafeHtml {
  const { job } = data;
  const lastEventId = data.events.at(-1)?.id ?? 0;
  return page(
    {
      ...frame,
      title: `Job · ${firstLine(job.prompt, 40)}`,
      project: { id: project.id, name: project.name, tab: 'jobs' },
      scripts: ['job-live.js'],
    },
    html`<p><a href="/app/projects/${project.id}/jobs">← All jobs</a></p>
<h1 class="job-title">${firstLine(job.prompt, 100)}</h1>
<div id="job-live" data-project-id="${project.id}" data-job-id="${job.id}" data-last-event-id="${lastEventId}" data-status="${job.status}">
  <section aria-labelledby="status-title">
    <h2 id="status-title" class="visually-hidden">Status</h2>
    <div id="job-summary">${jobSummary(job)}</div>
  </section>
  <section aria-labelledby="prompts-title">
    <h2 id="prompts-title">Prompt${data.prompts.length > 1 ? 's' : ''}</h2>
    <ol class="prompts">${data.prompts.map((p, i) => html`<li>${data.prompts.length > 1 ? html`<p class="small muted">${i === 0 ? 'First prompt' : `Follow-up ${i}`}</p>` : ''}<div class="prompt-text">${p}</div></li>`)}</ol>
  </section>
  ${docsChecksBlock(data.events)}
  ${errorBox(data.actionError)}
  <section aria-labelledby="actions-title">
    <h2 id="actions-title" class="visually-hidden">Actions</h2>
    <div id="job-actions">${jobActions(frame, project.id, job, data.form)}</div>
  </section>
  <div class="two-columns">
    <section aria-labelledby="events-title">
      <h2 id="events-title">Events</h2>
      <p class="muted small" id="live-status" role="status" aria-live="polite"></p>
      <ol class="timeline" id="job-events">${data.events.map(eventItem)}</ol>
    </section>
    <section aria-labelledby="diff-title">
      <h2 id="diff-title">Diff</h2>
      <div id="job-diff">${diffBlock(data.diff, data.diffWhy)}</div>
    </section>
  </div>
</div>`,
  );
}
