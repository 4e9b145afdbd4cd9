// The automations page: each automation of the project with its trigger, whether it is enabled,
// and its latest runs (status, why a run was skipped, the job it started). The owner can enable
// or disable an automation here; everyone else reads. Creating and editing stay in the API, the
// CLI and the client (docs/automations.md).
import type { AutomationRunView, AutomationView } from '../../../contract/index.ts';
import type { Project } from '../../projects/index.ts';
import { timeElement } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, type PageFrame, page } from './layout.ts';

export interface AutomationsPageData {
  automations: { automation: AutomationView; runs: AutomationRunView[] }[];
  /** Whether the signed-in user may enable and disable automations. */
  canManage: boolean;
}

/** What fires the automation, in words. */
export function triggerText(trigger: AutomationView['trigger']): string {
  if (trigger.type === 'schedule') return `Schedule ${trigger.cron ?? ''} (${trigger.timezone ?? 'UTC'})`;
  if (trigger.type === 'webhook') return 'Trigger URL';
  const what = (trigger.on ?? 'merged_pull_request') === 'push' ? 'Push' : 'Merged pull request';
  const filters = [
    trigger.paths ? `paths ${trigger.paths.join(', ')}` : '',
    trigger.labels ? `labels ${trigger.labels.join(', ')}` : '',
  ].filter(Boolean);
  return `${what} into ${(trigger.branches ?? ['main']).join(', ')} of ${trigger.repository ?? ''} on ${trigger.host ?? ''}${filters.length > 0 ? ` (${filters.join('; ')})` : ''}`;
}

function runStatus(run: AutomationRunView): SafeHtml {
  if (run.status === 'started') return html`<span class="badge badge-ok">started</span>`;
  if (run.status === 'skipped') return html`<span class="badge badge-failed">skipped</span>`;
  return html`<span class="badge badge-active">queued</span>`;
}

function runRow(project: Project, run: AutomationRunView): SafeHtml {
  const job = run.jobId
    ? html`<a href="/app/projects/${project.id}/jobs/${run.jobId}">${run.jobId}</a>${run.followedUp ? ' (follow-up)' : ''}`
    : html`—`;
  return html`<tr data-run-id="${run.id}">
      <td>${timeElement(run.createdAt)}</td>
      <td>${runStatus(run)}</td>
      <td>${job}</td>
      <td>${run.skipReason ?? ''}</td>
    </tr>`;
}

function automationCard(
  project: Project,
  frame: PageFrame,
  data: AutomationsPageData,
  item: AutomationsPageData['automations'][number],
): SafeHtml {
  const { automation, runs } = item;
  const titleId = `automation-${automation.id}`;
  const toggle = data.canManage
    ? html`<form method="post" action="/app/projects/${project.id}/automations/${automation.id}/enabled" class="actions">
    ${csrfField(frame.csrfToken)}
    <input type="hidden" name="enabled" value="${automation.enabled ? 'false' : 'true'}">
    <button type="submit" class="${automation.enabled ? 'danger' : 'primary'}">${automation.enabled ? 'Disable' : 'Enable'}<span class="visually-hidden"> ${automation.name}</span></button>
  </form>`
    : '';
  return html`<section class="card" aria-labelledby="${titleId}" data-automation-id="${automation.id}">
  <h2 id="${titleId}">${automation.name} ${automation.enabled ? html`<span class="badge badge-ok">enabled</span>` : html`<span class="badge badge-muted">disabled</span>`}</h2>
  <p>${triggerText(automation.trigger)}${automation.nextRunAt ? html`; next run ${timeElement(automation.nextRunAt)}` : ''}</p>
  ${toggle}
  ${
    runs.length === 0
      ? html`<p class="muted">No runs yet.</p>`
      : html`<div class="table-wrap"><table class="runs">
    <caption>Latest runs</caption>
    <thead><tr><th scope="col">Queued</th><th scope="col">Status</th><th scope="col">Job</th><th scope="col">Why skipped</th></tr></thead>
    <tbody>
    ${runs.map((run) => runRow(project, run))}
    </tbody>
  </table></div>`
  }
</section>`;
}

export function automationsPage(frame: PageFrame, project: Project, data: AutomationsPageData): SafeHtml {
  return page(
    { ...frame, project: { id: project.id, name: project.name, tab: 'automations' } },
    html`<h1>Automations</h1>
<p>Automations start jobs by themselves: when code is merged in a repository they watch, on a schedule, or when their trigger URL is called. Create and change them with the API or <code>docwright automations</code>.${data.canManage ? '' : ' Only the owner can enable or disable them.'}</p>
${
  data.automations.length === 0
    ? html`<p class="muted">This project has no automations yet.</p>`
    : data.automations.map((item) => automationCard(project, frame, data, item))
}`,
  );
}
