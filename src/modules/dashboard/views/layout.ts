// The page shell every dashboard page shares: head, skip link, top bar with the account, the
// project's tabs, and the main region.
import type { User } from '../../accounts/index.ts';
import { html, type SafeHtml } from '../html.ts';

export interface PageFrame {
  title: string;
  csrfToken: string;
  user: User | null;
  /** A short confirmation shown at the top of the page (after a redirect). */
  notice?: string | null;
  /** Page scripts under /app/assets/, loaded deferred after app.js. */
  scripts?: string[];
  project?: { id: string; name: string; tab: ProjectTab } | null;
  /** The top-level section, for aria-current. */
  section?: 'projects' | 'team' | null;
}

export type ProjectTab = 'jobs' | 'automations' | 'analytics' | 'usage' | 'keys' | 'settings';

const TABS: { tab: ProjectTab; label: string; path: string }[] = [
  { tab: 'jobs', label: 'Jobs', path: 'jobs' },
  { tab: 'automations', label: 'Automations', path: 'automations' },
  { tab: 'analytics', label: 'Analytics', path: 'analytics' },
  { tab: 'usage', label: 'Usage', path: 'usage' },
  { tab: 'keys', label: 'API keys', path: 'keys' },
  { tab: 'settings', label: 'Settings', path: 'settings' },
];

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function page(frame: PageFrame, body: SafeHtml): SafeHtml {
  const current = (on: boolean) => (on ? html` aria-current="page"` : '');
  const project = frame.project ?? null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${frame.csrfToken}">
<title>${frame.title} · docwright</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/app.css">
<script src="/app/assets/app.js" defer></script>
${(frame.scripts ?? []).map((s) => html`<script src="/app/assets/${s}" defer></script>\n`)}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/app">docwright</a>
  ${
    frame.user
      ? html`<nav class="topnav" aria-label="Main">
    <a href="/app/projects"${current(frame.section === 'projects')}>Projects</a>
    <a href="/app/team"${current(frame.section === 'team')}>Team</a>
  </nav>
  <div class="account">
    <span class="account-email" title="Signed in as ${frame.user.email}">${frame.user.email}</span>
    <form method="post" action="/app/sign-out">${csrfField(frame.csrfToken)}<button type="submit" class="link-button">Sign out</button></form>
  </div>`
      : ''
  }
</header>
${
  project
    ? html`<div class="project-bar">
  <p class="project-name"><a href="/app/projects">Projects</a> <span aria-hidden="true">/</span> <strong>${project.name}</strong></p>
  <nav class="tabs" aria-label="Project">
    ${TABS.map((t) => html`<a href="/app/projects/${project.id}/${t.path}"${current(project.tab === t.tab)}>${t.label}</a>`)}
  </nav>
</div>`
    : ''
}
<main id="main" tabindex="-1">
${frame.notice ? html`<p class="notice" role="status">${frame.notice}</p>` : ''}
${body}
</main>
</body>
</html>
`;
}

/** A form-level error: role=alert so screen readers announce it when the page loads. */
export function errorBox(message: string | null | undefined): SafeHtml {
  return message ? html`<div class="error-box" role="alert"><p>${message}</p></div>` : html``;
}
