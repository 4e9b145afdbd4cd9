// SQL for dashboard accounts, sessions, setup tokens, invitations and sign-in failures; one
// function per statement.
import type { Queryable } from '../../db/database.ts';

export type UserRole = 'owner' | 'member';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  role: UserRole;
  created_at: Date;
}

// Transaction-scoped lock taken by everything that creates accounts ("dwacct" in ASCII), so the
// first owner is created once even when two requests race.
const ACCOUNTS_LOCK_ID = 0x647761636374;

export async function lockAccounts(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [ACCOUNTS_LOCK_ID]);
}

export async function countUsers(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM users');
  return rows[0]!.n;
}

export async function insertUser(
  db: Queryable,
  u: { id: string; email: string; passwordHash: string; role: UserRole },
): Promise<UserRow | null> {
  const rows = await db.query<UserRow>(
    `INSERT INTO users (id, email, password_hash, role) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING
     RETURNING *`,
    [u.id, u.email, u.passwordHash, u.role],
  );
  return rows[0] ?? null;
}

export async function selectUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const rows = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}

export async function selectUser(db: Queryable, id: string): Promise<UserRow | null> {
  const rows = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function selectUsers(db: Queryable): Promise<UserRow[]> {
  return db.query<UserRow>('SELECT * FROM users ORDER BY created_at, id');
}

export async function deleteMember(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query("DELETE FROM users WHERE id = $1 AND role = 'member' RETURNING id", [id]);
  return rows.length > 0;
}

// --- sessions ---------------------------------------------------------------------------------

export interface SessionUserRow extends UserRow {
  session_created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  /** True when the session's last use is old enough to be recorded again. */
  stale: boolean;
}

export async function insertSession(
  db: Queryable,
  s: { tokenHash: Buffer; userId: string; idleSeconds: number; maxSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO user_sessions (token_hash, user_id, expires_at)
     VALUES ($1, $2, now() + least($3::int, $4::int) * interval '1 second')`,
    [s.tokenHash, s.userId, s.idleSeconds, s.maxSeconds],
  );
}

/** The unexpired session with this hash and its user; stale says whether to touch it. */
export async function selectSessionUser(
  db: Queryable,
  tokenHash: Buffer,
  touchAfterSeconds: number,
): Promise<SessionUserRow | null> {
  const rows = await db.query<SessionUserRow>(
    `SELECT u.*, s.created_at AS session_created_at, s.last_seen_at, s.expires_at,
            s.last_seen_at < now() - $2::int * interval '1 second' AS stale
       FROM user_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [tokenHash, touchAfterSeconds],
  );
  return rows[0] ?? null;
}

/** Moves the idle expiry forward, never past the session's absolute end. */
export async function touchSession(
  db: Queryable,
  tokenHash: Buffer,
  idleSeconds: number,
  maxSeconds: number,
): Promise<void> {
  await db.query(
    `UPDATE user_sessions
        SET last_seen_at = now(),
            expires_at = least(now() + $2::int * interval '1 second', created_at + $3::int * interval '1 second')
      WHERE token_hash = $1`,
    [tokenHash, idleSeconds, maxSeconds],
  );
}

export async function deleteSession(db: Queryable, tokenHash: Buffer): Promise<void> {
  await db.query('DELETE FROM user_sessions WHERE token_hash = $1', [tokenHash]);
}

export async function deleteExpiredSessions(db: Queryable): Promise<number> {
  const rows = await db.query('DELETE FROM user_sessions WHERE expires_at <= now() RETURNING user_id');
  return rows.length;
}

// --- setup tokens -----------------------------------------------------------------------------

export async function insertSetupToken(db: Queryable, tokenHash: Buffer, ttlSeconds: number): Promise<void> {
  await db.query(
    `INSERT INTO setup_tokens (token_hash, expires_at) VALUES ($1, now() + $2::int * interval '1 second')`,
    [tokenHash, ttlSeconds],
  );
}

export async function setupTokenIsValid(db: Queryable, tokenHash: Buffer): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM setup_tokens WHERE token_hash = $1 AND expires_at > now()', [
    tokenHash,
  ]);
  return rows.length > 0;
}

export async function deleteSetupTokens(db: Queryable): Promise<void> {
  await db.query('DELETE FROM setup_tokens');
}

// --- invitations ------------------------------------------------------------------------------

export interface InvitationRow {
  id: string;
  email: string;
  role: 'member';
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

export async function insertInvitation(
  db: Queryable,
  i: { id: string; tokenHash: Buffer; email: string; invitedBy: string; ttlSeconds: number },
): Promise<InvitationRow> {
  const rows = await db.query<InvitationRow>(
    `INSERT INTO invitations (id, token_hash, email, role, invited_by, expires_at)
     VALUES ($1, $2, $3, 'member', $4, now() + $5::int * interval '1 second')
     RETURNING id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at`,
    [i.id, i.tokenHash, i.email, i.invitedBy, i.ttlSeconds],
  );
  return rows[0]!;
}

/** Invitations that can still be accepted, newest first. */
export async function selectPendingInvitations(db: Queryable): Promise<InvitationRow[]> {
  return db.query<InvitationRow>(
    `SELECT id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at
       FROM invitations
      WHERE accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC, id`,
  );
}

/** Locks and returns the acceptable invitation with this hash. */
export async function selectAcceptableInvitationForUpdate(
  db: Queryable,
  tokenHash: Buffer,
): Promise<InvitationRow | null> {
  const rows = await db.query<InvitationRow>(
    `SELECT id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at
       FROM invitations
      WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      FOR UPDATE`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function updateInvitationAccepted(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE invitations SET accepted_at = now() WHERE id = $1', [id]);
}

export async function updateInvitationRevoked(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE invitations SET revoked_at = now()
      WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL
      RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

// --- sign-in attempts -------------------------------------------------------------------------
// A row per attempt that counts against the limits: failed, or still being checked (in_flight).

// Classes of the two-key advisory locks that make a reservation atomic ("dwsi", "dwsa" in ASCII).
const EMAIL_LOCK_CLASS = 0x64777369;
const ADDRESS_LOCK_CLASS = 0x64777361;

/**
 * Transaction-scoped locks on one email key and one client address, always in that order, so two
 * reservations never wait on each other in a cycle. Keys are int4 hashes of the strings: a
 * collision only makes two unrelated sign-ins wait for each other's reservation.
 */
export async function lockSignInKeys(
  tx: Queryable,
  emailKeyHash: number,
  clientIpHash: number,
): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::int4, $2::int4)', [EMAIL_LOCK_CLASS, emailKeyHash]);
  await tx.query('SELECT pg_advisory_xact_lock($1::int4, $2::int4)', [ADDRESS_LOCK_CLASS, clientIpHash]);
}

/** Takes a row for an attempt about to be checked; returns its id. */
export async function insertSignInAttempt(
  tx: Queryable,
  emailKey: string,
  clientIp: string,
): Promise<number> {
  const rows = await tx.query<{ id: number }>(
    'INSERT INTO sign_in_attempts (email_key, client_ip, in_flight) VALUES ($1, $2, true) RETURNING id',
    [emailKey, clientIp],
  );
  return rows[0]!.id;
}

/** The attempt failed: its row stays, counted until it leaves the window. */
export async function markSignInAttemptFailed(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE sign_in_attempts SET in_flight = false WHERE id = $1', [id]);
}

export interface AttemptWindowRow {
  by_email: number;
  by_ip: number;
  /** Seconds until the oldest attempt counted for the email (or the address) leaves the window. */
  email_free_in: number | null;
  ip_free_in: number | null;
}

export async function selectRecentAttempts(
  db: Queryable,
  emailKey: string,
  clientIp: string,
  windowSeconds: number,
): Promise<AttemptWindowRow> {
  const rows = await db.query<AttemptWindowRow>(
    `WITH recent AS (
       SELECT email_key, client_ip, at FROM sign_in_attempts
        WHERE at > now() - $3::int * interval '1 second' AND (email_key = $1 OR client_ip = $2)
     )
     SELECT count(*) FILTER (WHERE email_key = $1)::bigint AS by_email,
            count(*) FILTER (WHERE client_ip = $2)::bigint AS by_ip,
            extract(epoch FROM min(at) FILTER (WHERE email_key = $1) + $3::int * interval '1 second' - now())::float8
              AS email_free_in,
            extract(epoch FROM min(at) FILTER (WHERE client_ip = $2) + $3::int * interval '1 second' - now())::float8
              AS ip_free_in
       FROM recent`,
    [emailKey, clientIp, windowSeconds],
  );
  return rows[0]!;
}

/**
 * A right password: deletes this attempt and the email's failed ones. Other attempts still being
 * checked keep their rows, so they count if they fail.
 */
export async function deleteAttemptsAfterSuccess(db: Queryable, emailKey: string, id: number): Promise<void> {
  await db.query('DELETE FROM sign_in_attempts WHERE id = $2 OR (email_key = $1 AND NOT in_flight)', [
    emailKey,
    id,
  ]);
}

export async function deleteOldAttempts(db: Queryable, windowSeconds: number): Promise<void> {
  await db.query("DELETE FROM sign_in_attempts WHERE at <= now() - $1::int * interval '1 second'", [
    windowSeconds,
  ]);
}

/** Replaces a hash made with older parameters, unless the password changed meanwhile. */
export async function updatePasswordHash(
  db: Queryable,
  id: string,
  oldHash: string,
  newHash: string,
): Promise<void> {
  await db.query('UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [
    id,
    oldHash,
    newHash,
  ]);
}
