// Sign-in with email and password, throttled per email and per client address over a sliding
// window stored in the database (so it holds across server processes and restarts).
// An attempt is reserved before the password is checked: one transaction, holding a lock on the
// email and one on the address, counts the attempts in the window (failed ones and those still
// being checked) and, below both limits, takes a row for this one. So the limits hold for any
// number of parallel requests on any number of processes sharing the database, and a refused
// attempt never runs the password hash: a locked account cannot be probed, nor the server made to
// hash without bound.
import { crc32 } from 'node:zlib';
import type { Database } from '../../db/database.ts';
import { accountErrors } from './errors.ts';
import { decoyHash, type PasswordHasher, passwordHasher } from './passwords.ts';
import {
  deleteAttemptsAfterSuccess,
  deleteOldAttempts,
  insertSignInAttempt,
  lockSignInKeys,
  markSignInAttemptFailed,
  selectRecentAttempts,
  selectUserByEmail,
  updatePasswordHash,
} from './queries.ts';
import { normaliseEmail } from './rules.ts';
import { type Session, startSession } from './sessions.ts';
import { toUser } from './users.ts';

export interface ThrottleLimits {
  windowSeconds: number;
  /** Attempts allowed per email address within the window (failed or being checked). */
  perEmail: number;
  /** Attempts allowed per client address within the window (a guesser trying many emails). */
  perClient: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { windowSeconds: 15 * 60, perEmail: 5, perClient: 20 };

export async function signIn(
  db: Database,
  input: { email: unknown; password: unknown; clientIp: string },
  limits: ThrottleLimits = DEFAULT_THROTTLE,
  hasher: PasswordHasher = passwordHasher,
): Promise<Session> {
  const email = normaliseEmail(input.email);
  const emailKey = email.toLowerCase().slice(0, 254);
  const password = typeof input.password === 'string' ? input.password.slice(0, 1000) : '';
  const attempt = await reserveAttempt(db, emailKey, input.clientIp, limits);

  const user = email === '' ? null : await selectUserByEmail(db, email);
  // Unknown emails are checked against a decoy hash: the answer takes as long either way.
  const ok = await hasher.verify(password, user?.password_hash ?? (await decoyHash()));
  if (!ok || !user) {
    await markSignInAttemptFailed(db, attempt);
    throw accountErrors.sign_in_failed('The email address or the password is wrong.');
  }
  await deleteAttemptsAfterSuccess(db, emailKey, attempt);
  // Old rows are cleaned up here, where they are written, instead of by a timer.
  await deleteOldAttempts(db, limits.windowSeconds);
  // A hash made with older parameters (or scrypt) is replaced now that the password is known.
  if (hasher.needsRehash(user.password_hash)) {
    await updatePasswordHash(db, user.id, user.password_hash, await hasher.hash(password));
  }
  return startSession(db, toUser(user));
}

/** Reserves one attempt under both limits, or refuses with 429 and Retry-After; returns its id. */
async function reserveAttempt(
  db: Database,
  emailKey: string,
  clientIp: string,
  limits: ThrottleLimits,
): Promise<number> {
  const reserved = await db.transaction(async (tx) => {
    await lockSignInKeys(tx, crc32(emailKey) | 0, crc32(clientIp) | 0);
    const recent = await selectRecentAttempts(tx, emailKey, clientIp, limits.windowSeconds);
    const waits: number[] = [];
    if (recent.by_email >= limits.perEmail) waits.push(recent.email_free_in ?? limits.windowSeconds);
    if (recent.by_ip >= limits.perClient) waits.push(recent.ip_free_in ?? limits.windowSeconds);
    if (waits.length > 0) return { id: null, retryAfter: Math.max(1, Math.ceil(Math.max(...waits))) };
    return { id: await insertSignInAttempt(tx, emailKey, clientIp), retryAfter: 0 };
  });
  if (reserved.id !== null) return reserved.id;
  const minutes = Math.ceil(reserved.retryAfter / 60);
  throw accountErrors.sign_in_throttled(
    `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    { headers: { 'retry-after': String(reserved.retryAfter) } },
  );
}
