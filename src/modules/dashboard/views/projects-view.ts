// The projects page: every project, and the form that creates one.
import type { Project } from '../../projects/index.ts';
import { timeElement } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { type FieldErrors, selectField, textField } from './fields.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';

export const CODE_HOST_OPTIONS = [
  { value: '', label: 'Detect from the repository URL' },
  { value: 'github', label: 'GitHub' },
  { value: 'gitlab', label: 'GitLab' },
  { value: 'gitea', label: 'Gitea / Forgejo' },
];

export interface NewProjectForm {
  name?: string;
  repositoryUrl?: string;
  ref?: string;
  codeHostKind?: string;
  codeHostBaseUrl?: string;
  model?: string;
  error?: string | null;
  errors?: FieldErrors;
}

export function projectsPage(frame: PageFrame, projects: Project[], form: NewProjectForm = {}): SafeHtml {
  const errors = form.errors ?? {};
  return page(
    { ...frame, section: 'projects' },
    html`<h1>Projects</h1>
${
  projects.length === 0
    ? html`<p class="muted">No projects yet. Create the first one below.</p>`
    : html`<div class="table-wrap"><table class="projects">
  <caption class="visually-hidden">Projects</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Repository</th><th scope="col">Code host</th><th scope="col">Model</th><th scope="col">Created</th></tr></thead>
  <tbody>
  ${projects.map(
    (p) => html`<tr>
    <td><a href="/app/projects/${p.id}/jobs">${p.name}</a><br><code class="small muted">${p.id}</code></td>
    <td class="break">${p.repositoryUrl} <span class="muted">(${p.ref})</span></td>
    <td>${p.codeHost.kind}</td>
    <td>${p.model ?? html`<span class="muted">server default</span>`}</td>
    <td>${timeElement(p.createdAt)}</td>
  </tr>`,
  )}
  </tbody>
</table></div>`
}
<section class="card" aria-labelledby="new-project-title">
  <h2 id="new-project-title">New project</h2>
  ${errorBox(form.error)}
  <form method="post" action="/app/projects" novalidate>
    ${csrfField(frame.csrfToken)}
    <div class="grid-2">
      ${textField({ name: 'name', label: 'Name', required: true, value: form.name ?? '', errors, autocomplete: 'off' })}
      ${textField({ name: 'repositoryUrl', label: 'Repository URL', type: 'url', required: true, value: form.repositoryUrl ?? '', errors, placeholder: 'https://github.com/acme/docs', hint: 'The https address of the docs repository (no credentials in it).' })}
      ${textField({ name: 'ref', label: 'Branch', value: form.ref ?? '', errors, placeholder: 'main', hint: 'Jobs start from this branch; main when empty.' })}
      ${selectField({ name: 'codeHostKind', label: 'Code host', value: form.codeHostKind ?? '', options: CODE_HOST_OPTIONS, errors })}
      ${textField({ name: 'codeHostBaseUrl', label: 'Code host base URL', type: 'url', value: form.codeHostBaseUrl ?? '', errors, hint: 'Only for self-hosted GitHub Enterprise, GitLab or Gitea.' })}
      ${textField({ name: 'model', label: 'Model', value: form.model ?? '', errors, placeholder: 'anthropic:claude-sonnet-4-5', hint: 'provider:model; the server default when empty.' })}
    </div>
    <button type="submit" class="primary">Create project</button>
  </form>
</section>`,
  );
}
