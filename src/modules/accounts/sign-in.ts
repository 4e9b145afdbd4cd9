// Sign-in with email and password, throttled per email and per client address over a sliding
// window stored in the database (so it holds across server processes and restarts). A throttled
// attempt is refused before the password is checked: a locked account cannot be probed.
import type { Database } from '../../db/database.ts';
import { accountErrors } from './errors.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
import {
  deleteFailuresOfEmail,
  deleteOldFailures,
  insertSignInFailure,
  selectRecentFailures,
  selectUserByEmail,
} from './queries.ts';
import { normaliseEmail } from './rules.ts';
import { type Session, startSession } from './sessions.ts';
import { toUser } from './users.ts';

export interface ThrottleLimits {
  windowSeconds: number;
  /** Failures allowed per email address within the window. */
  perEmail: number;
  /** Failures allowed per client address within the window (a guesser trying many emails). */
  perClient: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { windowSeconds: 15 * 60, perEmail: 5, perClient: 20 };

export async function signIn(
  db: Database,
  input: { email: unknown; password: unknown; clientIp: string },
  limits: ThrottleLimits = DEFAULT_THROTTLE,
): Promise<Session> {
  const email = normaliseEmail(input.email);
  const emailKey = email.toLowerCase().slice(0, 254);
  const password = typeof input.password === 'string' ? input.password.slice(0, 1000) : '';
  await refuseWhenThrottled(db, emailKey, input.clientIp, limits);

  const user = email === '' ? null : await selectUserByEmail(db, email);
  // Unknown emails are checked against a decoy hash: the answer takes as long either way.
  const ok = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  if (!ok || !user) {
    await insertSignInFailure(db, emailKey, input.clientIp);
    throw accountErrors.sign_in_failed('The email address or the password is wrong.');
  }
  await deleteFailuresOfEmail(db, emailKey);
  // Old rows are cleaned up here, where they are written, instead of by a timer.
  await deleteOldFailures(db, limits.windowSeconds);
  return startSession(db, toUser(user));
}

async function refuseWhenThrottled(
  db: Database,
  emailKey: string,
  clientIp: string,
  limits: ThrottleLimits,
): Promise<void> {
  const recent = await selectRecentFailures(db, emailKey, clientIp, limits.windowSeconds);
  const waits: number[] = [];
  if (recent.by_email >= limits.perEmail) waits.push(recent.email_free_in ?? limits.windowSeconds);
  if (recent.by_ip >= limits.perClient) waits.push(recent.ip_free_in ?? limits.windowSeconds);
  if (waits.length === 0) return;
  const retryAfter = Math.max(1, Math.ceil(Math.max(...waits)));
  const minutes = Math.ceil(retryAfter / 60);
  throw accountErrors.sign_in_throttled(
    `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
}
