// The jobs page: a prompt box that starts a job, the status filter, and the jobs, newest first,
// updated live by jobs-live.js.
import { randomUUID } from 'node:crypto';
import { JOB_STATUSES, type JobStatus, type JobView } from '../../../contract/index.ts';
import type { Project } from '../../projects/index.ts';
import { html, type SafeHtml } from '../html.ts';
import { type FieldErrors, textareaField } from './fields.ts';
import { jobRow } from './job-parts.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';

export interface JobsPage {
  jobs: JobView[];
  status: JobStatus | null;
  nextCursor: string | null;
  /** True on a page after the first (the live list only adds new jobs on the first page). */
  paged: boolean;
  form?: { prompt?: string; error?: string | null; errors?: FieldErrors };
}

export function jobsPage(frame: PageFrame, project: Project, data: JobsPage): SafeHtml {
  const form = data.form ?? {};
  const filterQuery = data.status ? `status=${data.status}&` : '';
  return page(
    { ...frame, project: { id: project.id, name: project.name, tab: 'jobs' }, scripts: ['jobs-live.js'] },
    html`<h1>Jobs</h1>
<section class="card" aria-labelledby="new-job-title">
  <h2 id="new-job-title">New job</h2>
  ${errorBox(form.error)}
  <form method="post" action="/app/projects/${project.id}/jobs">
    ${csrfField(frame.csrfToken)}
    <input type="hidden" name="idempotencyKey" value="${randomUUID()}">
    ${textareaField({ name: 'prompt', label: 'What should the agent do?', value: form.prompt ?? '', required: true, rows: 4, errors: form.errors ?? {}, hint: `The agent edits ${project.repositoryUrl} (${project.ref}) and opens a pull request with its changes.` })}
    <button type="submit" class="primary">Start job</button>
  </form>
</section>
<section aria-labelledby="jobs-title">
  <div class="section-head">
    <h2 id="jobs-title">${data.status ? `${data.status[0]!.toUpperCase()}${data.status.slice(1)} jobs` : 'All jobs'}</h2>
    <form method="get" action="/app/projects/${project.id}/jobs" class="filter" data-auto-submit>
      <label for="status-filter">Status</label>
      <select id="status-filter" name="status">
        <option value="">All</option>
        ${JOB_STATUSES.map((s) => html`<option value="${s}"${data.status === s ? html` selected` : ''}>${s}</option>`)}
      </select>
      <button type="submit" class="small">Filter</button>
    </form>
  </div>
  <p class="live-status muted small" id="live-status" role="status" aria-live="polite"></p>
  <div class="table-wrap"><table class="jobs" id="jobs-table" data-project-id="${project.id}" data-status-filter="${data.status ?? ''}" data-first-page="${data.paged ? 'false' : 'true'}">
    <caption class="visually-hidden">Jobs of ${project.name}, newest first</caption>
    <thead><tr><th scope="col">Status</th><th scope="col">Prompt</th><th scope="col" class="wide-only">Created</th><th scope="col">Pull request</th></tr></thead>
    <tbody id="jobs-body">
      ${data.jobs.map((j) => jobRow(project.id, j))}
    </tbody>
  </table></div>
  ${data.jobs.length === 0 ? html`<p class="muted" id="no-jobs">No ${data.status ?? ''} jobs yet.</p>` : ''}
  <nav class="pager" aria-label="Job pages">
    ${data.paged ? html`<a href="/app/projects/${project.id}/jobs?${filterQuery}">Newest jobs</a>` : ''}
    ${data.nextCursor ? html`<a href="/app/projects/${project.id}/jobs?${filterQuery}cursor=${encodeURIComponent(data.nextCursor)}">Older jobs</a>` : ''}
  </nav>
</section>`,
  );
}
