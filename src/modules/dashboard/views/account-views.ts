// First run, sign-in and accepting an invitation: the pages a person sees before a session.
import { PASSWORD_MIN_LENGTH } from '../../accounts/index.ts';
import { html, type SafeHtml } from '../html.ts';
import { type FieldErrors, textField } from './fields.ts';
import { csrfField, errorBox, type PageFrame, page } from './layout.ts';

export function setupPage(
  frame: PageFrame,
  form: { email?: string; error?: string | null; errors?: FieldErrors },
): SafeHtml {
  const errors = form.errors ?? {};
  return page(
    { ...frame, scripts: ['code-from-link.js'] },
    html`<section class="narrow card">
  <h1>Set up docwright</h1>
  <p>Create the owner account. The owner can invite the rest of the team afterwards.</p>
  ${errorBox(form.error)}
  <form method="post" action="/app/setup" novalidate>
    ${csrfField(frame.csrfToken)}
    ${textField({ name: 'token', id: 'setup-code', label: 'Setup code', required: true, autocomplete: 'off', errors, hint: 'Filled in from the setup link that docwright serve printed on the console. Without it, paste the code after #code= in that link.' })}
    ${textField({ name: 'email', label: 'Email address', type: 'email', required: true, autocomplete: 'email', value: form.email ?? '', errors })}
    ${textField({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'new-password', errors, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
    ${textField({ name: 'confirm', label: 'Password again', type: 'password', required: true, autocomplete: 'new-password', errors })}
    <button type="submit" class="primary">Create owner account</button>
  </form>
</section>`,
  );
}

export function setupDonePage(frame: PageFrame): SafeHtml {
  return page(
    frame,
    html`<section class="narrow card">
  <h1>docwright is set up</h1>
  <p>An owner account exists already. <a href="/app/sign-in">Sign in</a>, or ask the owner for an invitation.</p>
</section>`,
  );
}

export function signInPage(
  frame: PageFrame,
  form: { email?: string; next?: string; error?: string | null; noAccounts?: boolean },
): SafeHtml {
  return page(
    frame,
    html`<section class="narrow card">
  <h1>Sign in</h1>
  ${
    form.noAccounts
      ? html`<p class="notice" role="status">No account exists yet. Open the setup link that <code>docwright serve</code> printed on the console to create the owner account.</p>`
      : ''
  }
  ${errorBox(form.error)}
  <form method="post" action="/app/sign-in">
    ${csrfField(frame.csrfToken)}
    <input type="hidden" name="next" value="${form.next ?? ''}">
    ${textField({ name: 'email', label: 'Email address', type: 'email', required: true, autocomplete: 'username', value: form.email ?? '' })}
    ${textField({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' })}
    <button type="submit" class="primary">Sign in</button>
  </form>
</section>`,
  );
}

export function invitationPage(
  frame: PageFrame,
  form: { error?: string | null; errors?: FieldErrors },
): SafeHtml {
  const errors = form.errors ?? {};
  return page(
    { ...frame, scripts: ['code-from-link.js'] },
    html`<section class="narrow card">
  <h1>Join docwright</h1>
  <p>Choose a password for your account. Your email address is the one the invitation was sent for.</p>
  ${errorBox(form.error)}
  <form method="post" action="/app/invite" novalidate>
    ${csrfField(frame.csrfToken)}
    ${textField({ name: 'token', id: 'invitation-code', label: 'Invitation code', required: true, autocomplete: 'off', errors, hint: 'Filled in from your invitation link.' })}
    ${textField({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'new-password', errors, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
    ${textField({ name: 'confirm', label: 'Password again', type: 'password', required: true, autocomplete: 'new-password', errors })}
    <button type="submit" class="primary">Create my account</button>
  </form>
</section>`,
  );
}

export function errorPage(frame: PageFrame, e: { status: number; title: string; message: string }): SafeHtml {
  return page(
    frame,
    html`<section class="narrow card">
  <h1>${e.title}</h1>
  <p role="alert">${e.message}</p>
  <p><a href="/app">Back to the dashboard</a></p>
</section>`,
  );
}
