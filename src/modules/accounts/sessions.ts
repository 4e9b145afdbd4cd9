// Server-side sessions: the cookie holds a random token, the database its hash, the user and the
// expiry. A session ends when idle for a week, after 30 days in any case, or at sign-out.
import type { Queryable } from '../../db/database.ts';
import { deleteSession, insertSession, selectSessionUser, touchSession } from './queries.ts';
import { hashToken, looksLikeToken, newToken } from './tokens.ts';
import { toUser, type User } from './users.ts';

export const SESSION_IDLE_SECONDS = 7 * 24 * 3600;
export const SESSION_MAX_SECONDS = 30 * 24 * 3600;
/** Last use is recorded at most this often, so page loads do not each write. */
const TOUCH_AFTER_SECONDS = 300;

export interface Session {
  /** The cookie's value; also what the session's CSRF token is derived from. */
  token: string;
  user: User;
}

export async function startSession(db: Queryable, user: User): Promise<Session> {
  const token = newToken();
  await insertSession(db, {
    tokenHash: hashToken(token),
    userId: user.id,
    idleSeconds: SESSION_IDLE_SECONDS,
    maxSeconds: SESSION_MAX_SECONDS,
  });
  return { token, user };
}

/** The live session of this cookie value, or null (unknown, expired, signed out, malformed). */
export async function resumeSession(db: Queryable, token: unknown): Promise<Session | null> {
  if (!looksLikeToken(token)) return null;
  const tokenHash = hashToken(token);
  const row = await selectSessionUser(db, tokenHash, TOUCH_AFTER_SECONDS);
  if (!row) return null;
  if (row.stale) await touchSession(db, tokenHash, SESSION_IDLE_SECONDS, SESSION_MAX_SECONDS);
  return { token, user: toUser(row) };
}

export async function endSession(db: Queryable, token: unknown): Promise<void> {
  if (looksLikeToken(token)) await deleteSession(db, hashToken(token));
}
