// The API keys page: the projectId to copy, a new key shown once, the project's keys, and the
// form that creates one. Revoking asks for confirmation on a page of its own.
import type { ApiKeyInfo } from '../../keys/index.ts';
import type { Project } from '../../projects/index.ts';
import { timeElement } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyButton, type FieldErrors, selectField, textField } from './fields.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';

export const EXPIRY_OPTIONS = [
  { value: '', label: 'Never' },
  { value: '7d', label: 'In 7 days' },
  { value: '30d', label: 'In 30 days' },
  { value: '90d', label: 'In 90 days' },
  { value: '365d', label: 'In 1 year' },
];

const SCOPE_OPTIONS = [
  { value: 'admin', label: 'admin: create and manage jobs, read analytics, ingest' },
  { value: 'read', label: 'read: read jobs and analytics only' },
  { value: 'ingest', label: 'ingest: send page views only' },
];

export interface KeysPage {
  keys: ApiKeyInfo[];
  /** A key just created: its secret is in this one answer and nowhere else. */
  created?: { name: string; key: string } | null;
  form?: { name?: string; scope?: string; expiry?: string; error?: string | null; errors?: FieldErrors };
}

function keyStatus(k: ApiKeyInfo): SafeHtml {
  if (k.revokedAt) return html`<span class="badge badge-failed">revoked</span>`;
  if (k.expiresAt && k.expiresAt.getTime() <= Date.now())
    return html`<span class="badge badge-muted">expired</span>`;
  return html`<span class="badge badge-ok">active</span>`;
}

export function keysPage(frame: PageFrame, project: Project, data: KeysPage): SafeHtml {
  const form = data.form ?? {};
  const errors = form.errors ?? {};
  return page(
    { ...frame, project: { id: project.id, name: project.name, tab: 'keys' } },
    html`<h1>API keys</h1>
<section class="card" aria-labelledby="project-id-title">
  <h2 id="project-id-title">Project ID</h2>
  <p>Every API call names the project in its path: <code>/v2/agent/{projectId}/job</code>, <code>/v1/analytics/{projectId}/views</code>.</p>
  <div class="copy-row"><code id="project-id" class="copy-value">${project.id}</code>${copyButton('project-id', 'Copy project ID')}</div>
</section>
${
  data.created
    ? html`<section class="once-panel" aria-labelledby="new-key-title" tabindex="-1" id="new-key">
  <h2 id="new-key-title">Your new API key “${data.created.name}”</h2>
  <p class="warning" role="alert"><strong>Copy this key now. It is shown only once</strong>: docwright stores only a hash of it and cannot show it again. Keep it on the server side; never put it in a web page.</p>
  <div class="copy-row"><label class="visually-hidden" for="new-key-value">New API key</label><input id="new-key-value" class="secret-value" readonly value="${data.created.key}" spellcheck="false">${copyButton('new-key-value', 'Copy key')}</div>
</section>`
    : ''
}
<section aria-labelledby="keys-title">
  <h2 id="keys-title">Keys</h2>
  ${
    data.keys.length === 0
      ? html`<p class="muted">This project has no keys yet.</p>`
      : html`<div class="table-wrap"><table class="keys">
    <caption class="visually-hidden">API keys of ${project.name}</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>
    ${data.keys.map(
      (k) => html`<tr data-key-id="${k.id}">
      <td>${k.name}</td>
      <td><code>${k.prefix}…</code></td>
      <td>${k.scope}</td>
      <td>${timeElement(k.createdAt)}</td>
      <td>${timeElement(k.lastUsedAt, 'never')}</td>
      <td>${timeElement(k.expiresAt, 'never')}</td>
      <td>${keyStatus(k)}</td>
      <td>${
        k.revokedAt
          ? ''
          : html`<a class="button small danger" href="/app/projects/${project.id}/keys/${k.id}/revoke">Revoke<span class="visually-hidden"> ${k.name}</span></a>`
      }</td>
    </tr>`,
    )}
    </tbody>
  </table></div>`
  }
</section>
<section class="card" aria-labelledby="create-key-title">
  <h2 id="create-key-title">Create a key</h2>
  ${errorBox(form.error)}
  <form method="post" action="/app/projects/${project.id}/keys">
    ${csrfField(frame.csrfToken)}
    <div class="grid-3">
      ${textField({ name: 'name', label: 'Name', value: form.name ?? '', errors, autocomplete: 'off', placeholder: 'CI pipeline', hint: 'Say where the key will be used.' })}
      ${selectField({ name: 'scope', label: 'Scope', value: form.scope ?? 'admin', options: SCOPE_OPTIONS, errors })}
      ${selectField({ name: 'expiry', label: 'Expires', value: form.expiry ?? '', options: EXPIRY_OPTIONS, errors })}
    </div>
    <button type="submit" class="primary">Create key</button>
  </form>
</section>`,
  );
}

export function revokeKeyPage(frame: PageFrame, project: Project, key: ApiKeyInfo): SafeHtml {
  return page(
    { ...frame, project: { id: project.id, name: project.name, tab: 'keys' } },
    html`<section class="narrow card">
  <h1>Revoke key “${key.name}”?</h1>
  <p>Key <code>${key.prefix}…</code> (scope ${key.scope}) stops working at once: every program that uses it gets 401 from now on. This cannot be undone.</p>
  <form method="post" action="/app/projects/${project.id}/keys/${key.id}/revoke" class="actions">
    ${csrfField(frame.csrfToken)}
    <button type="submit" class="danger">Revoke key</button>
    <a class="button" href="/app/projects/${project.id}/keys">Cancel</a>
  </form>
</section>`,
  );
}
