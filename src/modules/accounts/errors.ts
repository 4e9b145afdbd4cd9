import { defineErrors } from '../../errors/app-error.ts';

export const accountErrors = defineErrors({
  not_signed_in: {
    status: 401,
    description: 'A dashboard route was called without a valid session (sign in at /app/sign-in).',
  },
  sign_in_failed: {
    status: 401,
    description: 'Dashboard sign-in: the email or the password is wrong (the answer does not say which).',
  },
  sign_in_throttled: {
    status: 429,
    description:
      'Dashboard sign-in: too many failed attempts for this email or client address in 15 minutes; Retry-After says when to try again.',
  },
  csrf_failed: {
    status: 403,
    description:
      'A dashboard change came without the CSRF token of the session, or from another origin; reload the page and try again.',
  },
  setup_done: {
    status: 409,
    description: 'Dashboard setup was asked for, but an account already exists: sign in instead.',
  },
  setup_token_invalid: {
    status: 400,
    description:
      'The dashboard setup code is unknown, used or expired; restarting docwright serve prints a new setup link.',
  },
  invalid_account: {
    status: 400,
    description:
      'An email address or password does not meet the rules (a valid email; 10 to 200 characters).',
  },
  account_exists: { status: 409, description: 'An account with this email address already exists.' },
  invitation_invalid: {
    status: 400,
    description: 'The invitation code is unknown, already accepted, revoked or expired.',
  },
  owner_only: {
    status: 403,
    description:
      "Only the dashboard owner may do this (invite people, remove members, create projects, change a project's repository, code host, webhook URL or GitHub App, set secrets).",
  },
  user_not_found: { status: 404, description: 'No dashboard account has this id.' },
  invitation_not_found: { status: 404, description: 'No pending invitation has this id.' },
});
