// A project's settings: what it points at and how the agent and analytics behave (one form), and
// its secrets (another form). Secrets are write-only: the page says whether each is set, never
// what it is, and an empty field leaves a stored secret as it is.

import type { Project } from '../../projects/index.ts';
import { PROJECT_SECRET_NAMES, type ProjectSecretName } from '../../projects/index.ts';
import { timeElement } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { checkboxField, type FieldErrors, selectField, textareaField, textField } from './fields.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';
import { CODE_HOST_OPTIONS } from './projects-view.ts';

/** The values of the settings form as typed (so a refused form comes back as it was sent). */
export interface SettingsForm {
  name: string;
  repositoryUrl: string;
  ref: string;
  codeHostKind: string;
  codeHostBaseUrl: string;
  codeHostApiUrl: string;
  model: string;
  draftPullRequests: boolean;
  deniedPaths: string;
  maxSteps: string;
  maxTotalTokens: string;
  wallTimeSeconds: string;
  allowedOrigins: string;
  webhookUrl: string;
  githubAppId: string;
  githubAppInstallationId: string;
}

export function settingsFormOf(project: Project): SettingsForm {
  const s = project.settings as Project['settings'] & { webhookUrl?: string };
  const text = (v: number | string | undefined) => (v === undefined ? '' : String(v));
  return {
    name: project.name,
    repositoryUrl: project.repositoryUrl,
    ref: project.ref,
    codeHostKind: project.codeHost.kind,
    codeHostBaseUrl: project.codeHost.baseUrl ?? '',
    codeHostApiUrl: project.codeHost.apiUrl ?? '',
    model: project.model ?? '',
    draftPullRequests: s.draftPullRequests ?? false,
    deniedPaths: (s.deniedPaths ?? []).join('\n'),
    maxSteps: text(s.maxSteps),
    maxTotalTokens: text(s.maxTotalTokens),
    wallTimeSeconds: text(s.wallTimeSeconds),
    allowedOrigins: (s.allowedOrigins ?? []).join('\n'),
    webhookUrl: s.webhookUrl ?? '',
    githubAppId: s.githubAppId ?? '',
    githubAppInstallationId: s.githubAppInstallationId ?? '',
  };
}

export interface SecretStatus {
  name: ProjectSecretName;
  updatedAt: Date | null;
  /** Stored for another code host (described): jobs do not use it until it is set again. */
  suspendedFor?: string | null;
}

const SECRET_LABELS: Record<ProjectSecretName, string> = {
  codeHostToken: 'Code host token',
  modelApiKey: 'Model API key',
  webhookSecret: 'Webhook secret',
  githubAppPrivateKey: 'GitHub App private key',
  codeHostWebhookSecret: 'Code host webhook secret (automations)',
};

export function settingsPage(
  frame: PageFrame,
  project: Project,
  data: {
    form: SettingsForm;
    secrets: SecretStatus[];
    defaultModel: string | null;
    error?: string | null;
    errors?: FieldErrors;
    secretsError?: string | null;
    secretErrors?: FieldErrors;
  },
): SafeHtml {
  const f = data.form;
  const errors = data.errors ?? {};
  // Members see where requests and the token go, but only the owner changes it.
  const readonly = frame.user?.role !== 'owner';
  const num = (name: keyof SettingsForm, label: string, hint: string, min: number, max?: number) =>
    textField({
      name,
      label,
      type: 'number',
      value: f[name] as string,
      errors,
      hint,
      min,
      ...(max ? { max } : {}),
    });
  return page(
    { ...frame, project: { id: project.id, name: project.name, tab: 'settings' } },
    html`<h1>Settings</h1>
${errorBox(data.error)}
<form method="post" action="/app/projects/${project.id}/settings" novalidate class="settings">
  ${csrfField(frame.csrfToken)}
  <fieldset>
    <legend>Repository</legend>
    <div class="grid-2">
      ${textField({ name: 'name', label: 'Name', required: true, value: f.name, errors })}
      ${textField({ name: 'repositoryUrl', label: 'Repository URL', type: 'url', required: true, value: f.repositoryUrl, errors, readonly })}
      ${textField({ name: 'ref', label: 'Branch', required: true, value: f.ref, errors, hint: 'Jobs start from this branch and their pull requests target it.' })}
      ${selectField({ name: 'codeHostKind', label: 'Code host', value: f.codeHostKind, options: CODE_HOST_OPTIONS.slice(1), errors })}
      ${textField({ name: 'codeHostBaseUrl', label: 'Code host base URL', type: 'url', value: f.codeHostBaseUrl, errors, readonly, hint: 'Only for self-hosted GitHub Enterprise, GitLab or Gitea; empty for the public host.' })}
      ${textField({ name: 'codeHostApiUrl', label: 'Code host API URL', type: 'url', value: f.codeHostApiUrl, errors, readonly, hint: 'Only when the API is not under the base URL (/api/v3, /api/v4, /api/v1), e.g. GitHub Enterprise behind a proxy; empty: derived.' })}
    </div>
    <p class="hint">Only the owner changes the repository, the code host, the webhook URL, the GitHub App and the secrets. A new repository host or code host suspends the stored code-host token and App key until they are set again.</p>
  </fieldset>
  <fieldset>
    <legend>Agent</legend>
    <div class="grid-2">
      ${textField({ name: 'model', label: 'Model', value: f.model, errors, placeholder: data.defaultModel ?? 'anthropic:claude-sonnet-4-5', hint: data.defaultModel ? `provider:model; empty uses the server default (${data.defaultModel}).` : 'provider:model; empty uses the server default (none is set on this server).' })}
      ${checkboxField({ name: 'draftPullRequests', label: 'Open pull requests as drafts', checked: f.draftPullRequests, errors })}
      ${textareaField({ name: 'deniedPaths', label: 'Denied paths', value: f.deniedPaths, errors, rows: 3, hint: 'One glob per line, e.g. legal/**. Always denied as well: .git/** and .github/workflows/**.' })}
      ${num('maxSteps', 'Maximum steps per run', 'Empty: the server default (40).', 1, 1000)}
      ${num('maxTotalTokens', 'Maximum tokens per run', 'Input plus output tokens; empty: no limit beyond the server default.', 1000)}
      ${num('wallTimeSeconds', 'Maximum run time (seconds)', 'Empty: the server default (900).', 10, 86400)}
    </div>
  </fieldset>
  <fieldset>
    <legend>Analytics and webhooks</legend>
    <div class="grid-2">
      ${textareaField({ name: 'allowedOrigins', label: 'Allowed origins for the browser script', value: f.allowedOrigins, errors, rows: 3, hint: 'One origin per line, e.g. https://docs.example.com (scheme and host, no path).' })}
      ${textField({ name: 'webhookUrl', label: 'Webhook URL', type: 'url', value: f.webhookUrl, errors, readonly, hint: 'Receives job completed, failed, archived and pull request opened, signed with the webhook secret.' })}
      ${textField({ name: 'githubAppId', label: 'GitHub App id', value: f.githubAppId, errors, readonly, hint: 'Only when pushing as a GitHub App (with its private key below).' })}
      ${textField({ name: 'githubAppInstallationId', label: 'GitHub App installation id', value: f.githubAppInstallationId, errors, readonly })}
    </div>
  </fieldset>
  <button type="submit" class="primary">Save settings</button>
</form>

<section class="card" aria-labelledby="secrets-title">
  <h2 id="secrets-title">Secrets</h2>
  <p>Secrets are stored encrypted and never shown again, here or anywhere else. Type a new value to replace one; leave a field empty to keep what is stored.</p>
  ${errorBox(data.secretsError)}
  <form method="post" action="/app/projects/${project.id}/secrets" autocomplete="off" novalidate>
    ${csrfField(frame.csrfToken)}
    ${data.secrets.map((s) => secretField(s, data.secretErrors ?? {}))}
    <button type="submit" class="primary">Save secrets</button>
  </form>
</section>`,
  );
}

function secretField(s: SecretStatus, errors: FieldErrors): SafeHtml {
  const id = `secret-${s.name}`;
  const status =
    s.updatedAt === null
      ? html`<span class="badge badge-muted" id="${id}-status">Not set</span>`
      : s.suspendedFor
        ? html`<span class="badge badge-muted" id="${id}-status">Suspended</span> <span class="muted small">stored for ${s.suspendedFor}; set it again for this code host</span>`
        : html`<span class="badge badge-ok" id="${id}-status">Set</span> <span class="muted small">updated ${timeElement(s.updatedAt)}</span>`;
  const error = errors[s.name];
  const multiline = s.name === 'githubAppPrivateKey';
  return html`<div class="field secret${error ? ' has-error' : ''}">
  <label for="${id}">${SECRET_LABELS[s.name]} ${status}</label>
  ${
    multiline
      ? html`<textarea id="${id}" name="${s.name}" rows="3" spellcheck="false" aria-describedby="${id}-hint ${id}-status"></textarea>`
      : html`<input id="${id}" name="${s.name}" type="password" autocomplete="new-password" spellcheck="false" aria-describedby="${id}-hint ${id}-status">`
  }
  <p class="hint" id="${id}-hint">${PROJECT_SECRET_NAMES[s.name]}</p>
  ${error ? html`<p class="field-error">${error}</p>` : ''}
  ${
    s.updatedAt !== null
      ? html`<div class="checkbox"><input type="checkbox" id="${id}-remove" name="remove" value="${s.name}"><label for="${id}-remove">Remove the stored ${SECRET_LABELS[s.name].toLowerCase()}</label></div>`
      : ''
  }
</div>`;
}
