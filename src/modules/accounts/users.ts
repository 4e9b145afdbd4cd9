// Dashboard accounts: the owner created through the one-time setup code, members through the
// owner's invitations, and the team list. Passwords are hashed before any transaction starts, so
// a transaction never waits on password hashing.
import type { Database, Queryable } from '../../db/database.ts';
import { randomBase62 } from '../../util/random.ts';
import { accountErrors } from './errors.ts';
import { hashPassword } from './passwords.ts';
import {
  countUsers,
  deleteMember,
  deleteSetupTokens,
  type InvitationRow,
  insertInvitation,
  insertSetupToken,
  insertUser,
  lockAccounts,
  selectAcceptableInvitationForUpdate,
  selectPendingInvitations,
  selectUserByEmail,
  selectUsers,
  setupTokenIsValid,
  type UserRole,
  type UserRow,
  updateInvitationAccepted,
  updateInvitationRevoked,
} from './queries.ts';
import { assertAccountFields, checkEmail, normaliseEmail } from './rules.ts';
import { hashToken, looksLikeToken, newToken } from './tokens.ts';

/** A setup code printed at a start stays usable this long (a restart prints a new one). */
export const SETUP_TOKEN_TTL_SECONDS = 24 * 3600;
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

export interface User {
  id: string;
  email: string;
  role: UserRole;
  createdAt: Date;
}

export const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at,
});

const newUserId = () => `usr_${randomBase62(16)}`;

export async function hasUsers(db: Queryable): Promise<boolean> {
  return (await countUsers(db)) > 0;
}

/**
 * A new one-time setup code when no account exists (for the console's setup link); null when
 * the dashboard is already set up. Codes of earlier starts stay valid until they expire.
 */
export async function createSetupToken(db: Database): Promise<string | null> {
  return db.transaction(async (tx) => {
    await lockAccounts(tx);
    if ((await countUsers(tx)) > 0) return null;
    const token = newToken();
    await insertSetupToken(tx, hashToken(token), SETUP_TOKEN_TTL_SECONDS);
    return token;
  });
}

/** Creates the owner with a valid setup code; every setup code is spent with it. */
export async function completeSetup(
  db: Database,
  input: { token: unknown; email: unknown; password: unknown; confirm?: unknown },
): Promise<User> {
  const email = normaliseEmail(input.email);
  assertAccountFields({ email, password: input.password, confirm: input.confirm });
  if (await hasUsers(db)) throw accountErrors.setup_done('The dashboard is already set up: sign in instead.');
  if (!looksLikeToken(input.token)) throw setupTokenInvalid();
  const passwordHash = await hashPassword(input.password as string);
  const row = await db.transaction(async (tx) => {
    await lockAccounts(tx);
    if ((await countUsers(tx)) > 0) {
      throw accountErrors.setup_done('The dashboard is already set up: sign in instead.');
    }
    if (!(await setupTokenIsValid(tx, hashToken(input.token as string)))) throw setupTokenInvalid();
    const owner = await insertUser(tx, { id: newUserId(), email, passwordHash, role: 'owner' });
    await deleteSetupTokens(tx);
    return owner!;
  });
  return toUser(row);
}

function setupTokenInvalid() {
  return accountErrors.setup_token_invalid(
    'This setup code is unknown, used or expired. Restart docwright serve: it prints a new setup link while no account exists.',
  );
}

export async function listUsers(db: Queryable): Promise<User[]> {
  return (await selectUsers(db)).map(toUser);
}

export interface Invitation {
  id: string;
  email: string;
  role: 'member';
  createdAt: Date;
  expiresAt: Date;
}

const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

function assertOwner(actor: User, what: string): void {
  if (actor.role !== 'owner') throw accountErrors.owner_only(`Only the owner may ${what}.`);
}

/** The invitation and its code (returned once: only its hash is stored). */
export async function inviteUser(
  db: Database,
  actor: User,
  rawEmail: unknown,
): Promise<{ invitation: Invitation; token: string }> {
  assertOwner(actor, 'invite people');
  const email = normaliseEmail(rawEmail);
  const problem = checkEmail(email);
  if (problem) {
    throw accountErrors.invalid_account(problem, {
      details: [{ location: 'body', name: 'email', message: problem }],
    });
  }
  if (await selectUserByEmail(db, email)) {
    throw accountErrors.account_exists(`${email} already has an account.`);
  }
  const token = newToken();
  const row = await insertInvitation(db, {
    id: `inv_${randomBase62(16)}`,
    tokenHash: hashToken(token),
    email,
    invitedBy: actor.id,
    ttlSeconds: INVITATION_TTL_SECONDS,
  });
  return { invitation: toInvitation(row), token };
}

export async function listPendingInvitations(db: Queryable): Promise<Invitation[]> {
  return (await selectPendingInvitations(db)).map(toInvitation);
}

export async function revokeInvitation(db: Queryable, actor: User, id: string): Promise<void> {
  assertOwner(actor, 'revoke invitations');
  if (!(await updateInvitationRevoked(db, id))) {
    throw accountErrors.invitation_not_found(`No pending invitation has the id "${id}".`);
  }
}

/** Creates the invited member's account with the chosen password. */
export async function acceptInvitation(
  db: Database,
  input: { token: unknown; password: unknown; confirm?: unknown },
): Promise<User> {
  assertAccountFields({ password: input.password, confirm: input.confirm });
  if (!looksLikeToken(input.token)) throw invitationInvalid();
  const passwordHash = await hashPassword(input.password as string);
  const row = await db.transaction(async (tx) => {
    await lockAccounts(tx);
    const invitation = await selectAcceptableInvitationForUpdate(tx, hashToken(input.token as string));
    if (!invitation) throw invitationInvalid();
    const user = await insertUser(tx, {
      id: newUserId(),
      email: invitation.email,
      passwordHash,
      role: invitation.role,
    });
    if (!user)
      throw accountErrors.account_exists(`${invitation.email} already has an account: sign in instead.`);
    await updateInvitationAccepted(tx, invitation.id);
    return user;
  });
  return toUser(row);
}

function invitationInvalid() {
  return accountErrors.invitation_invalid(
    'This invitation is unknown, already accepted, revoked or expired: ask the owner for a new one.',
  );
}

/** Removes a member (their sessions go with the account); the owner cannot be removed. */
export async function removeMember(db: Queryable, actor: User, id: string): Promise<void> {
  assertOwner(actor, 'remove people');
  if (!(await deleteMember(db, id))) {
    throw accountErrors.user_not_found(`No member has the id "${id}" (the owner cannot be removed).`);
  }
}
