// The accounts module's public surface: dashboard users, invitations, sessions, sign-in and the
// CSRF tokens of their forms. Other code imports this file, never the files beside it.
export { assertCsrf, CSRF_FIELD, CSRF_HEADER, csrfTokenFor } from './csrf.ts';
export { accountErrors } from './errors.ts';
export { PASSWORD_MIN_LENGTH } from './passwords.ts';
export { endSession, resumeSession, SESSION_MAX_SECONDS, type Session, startSession } from './sessions.ts';
export { signIn } from './sign-in.ts';
export { looksLikeToken, newToken } from './tokens.ts';
export {
  acceptInvitation,
  completeSetup,
  createSetupToken,
  hasUsers,
  type Invitation,
  inviteUser,
  listPendingInvitations,
  listUsers,
  removeMember,
  revokeInvitation,
  type User,
} from './users.ts';
