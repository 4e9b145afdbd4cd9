// The team page: who has an account, pending invitations, and (for the owner) inviting people.
import type { Invitation, User } from '../../accounts/index.ts';
import { timeElement } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyButton, type FieldErrors, textField } from './fields.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';

export interface TeamPage {
  users: User[];
  invitations: Invitation[];
  /** The link of an invitation just created: shown once. */
  newInvitation?: { email: string; link: string } | null;
  form?: { email?: string; error?: string | null; errors?: FieldErrors };
}

export function teamPage(frame: PageFrame, data: TeamPage): SafeHtml {
  const me = frame.user!;
  const isOwner = me.role === 'owner';
  const form = data.form ?? {};
  return page(
    { ...frame, section: 'team' },
    html`<h1>Team</h1>
${
  data.newInvitation
    ? html`<section class="once-panel" aria-labelledby="invite-link-title">
  <h2 id="invite-link-title">Invitation link for ${data.newInvitation.email}</h2>
  <p class="warning"><strong>Send this link to ${data.newInvitation.email} now: it is shown only once.</strong> It works once, for 7 days.</p>
  <div class="copy-row"><label class="visually-hidden" for="invitation-link">Invitation link</label><input id="invitation-link" class="secret-value" readonly value="${data.newInvitation.link}">${copyButton('invitation-link')}</div>
</section>`
    : ''
}
<section aria-labelledby="people-title">
  <h2 id="people-title">People</h2>
  <div class="table-wrap"><table>
    <caption class="visually-hidden">People with an account</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th>${isOwner ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>
    <tbody>
    ${data.users.map(
      (u) => html`<tr>
      <td>${u.email}${u.id === me.id ? html` <span class="muted">(you)</span>` : ''}</td>
      <td>${u.role}</td>
      <td>${timeElement(u.createdAt)}</td>
      ${
        isOwner
          ? html`<td>${
              u.role === 'member'
                ? html`<form method="post" action="/app/team/users/${u.id}/remove" class="inline" data-confirm="Remove ${u.email}? Their sessions end at once.">${csrfField(frame.csrfToken)}<button type="submit" class="danger small">Remove<span class="visually-hidden"> ${u.email}</span></button></form>`
                : ''
            }</td>`
          : ''
      }
    </tr>`,
    )}
    </tbody>
  </table></div>
</section>
<section aria-labelledby="invitations-title">
  <h2 id="invitations-title">Pending invitations</h2>
  ${
    data.invitations.length === 0
      ? html`<p class="muted">No pending invitations.</p>`
      : html`<div class="table-wrap"><table>
    <thead><tr><th scope="col">Email</th><th scope="col">Sent</th><th scope="col">Expires</th>${isOwner ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>
    <tbody>${data.invitations.map(
      (i) =>
        html`<tr><td>${i.email}</td><td>${timeElement(i.createdAt)}</td><td>${timeElement(i.expiresAt)}</td>${
          isOwner
            ? html`<td><form method="post" action="/app/team/invitations/${i.id}/revoke" class="inline">${csrfField(frame.csrfToken)}<button type="submit" class="small">Revoke<span class="visually-hidden"> invitation for ${i.email}</span></button></form></td>`
            : ''
        }</tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
${
  isOwner
    ? html`<section aria-labelledby="invite-title" class="card">
  <h2 id="invite-title">Invite someone</h2>
  ${errorBox(form.error)}
  <form method="post" action="/app/team/invitations">
    ${csrfField(frame.csrfToken)}
    ${textField({ name: 'email', label: 'Email address', type: 'email', required: true, autocomplete: 'off', value: form.email ?? '', errors: form.errors ?? {}, hint: 'They get a link to choose a password. Members can use every project; only the owner manages the team.' })}
    <button type="submit" class="primary">Create invitation link</button>
  </form>
</section>`
    : html`<p class="muted">Only the owner can invite people.</p>`
}`,
  );
}
