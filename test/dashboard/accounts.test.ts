// The accounts module on both backends: setup code, owner, sign-in with throttling, sessions,
// invitations, team changes, and the CSRF check.
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { AppError } from '../../src/errors/app-error.ts';
import { assertCsrf, csrfTokenFor } from '../../src/modules/accounts/csrf.ts';
import {
  hashPassword,
  needsRehash,
  type PasswordHasher,
  passwordHasher,
  verifyPassword,
} from '../../src/modules/accounts/passwords.ts';
import { endSession, resumeSession } from '../../src/modules/accounts/sessions.ts';
import { DEFAULT_THROTTLE, signIn } from '../../src/modules/accounts/sign-in.ts';
import { hashToken } from '../../src/modules/accounts/tokens.ts';
import {
  acceptInvitation,
  completeSetup,
  createSetupToken,
  hasUsers,
  inviteUser,
  listPendingInvitations,
  listUsers,
  removeMember,
  revokeInvitation,
  type User,
} from '../../src/modules/accounts/users.ts';
import { forEachBackend, TEST_DATABASE_URL } from '../helpers/databases.ts';

const PASSWORD = 'correct horse battery';

/** A hash as docwright made them before argon2id: scrypt, N = 2^15, r = 8, p = 1. */
async function legacyScryptHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFC'), salt, 32, {
    N: 2 ** 15,
    r: 8,
    p: 1,
    maxmem: 64 * 2 ** 20,
  });
  return `scrypt$32768$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** The real hasher, counting its calls; verify waits for `hold` first when one is given. */
function countingHasher(hold?: Promise<void>) {
  const counts = { verify: 0, hash: 0 };
  const hasher: PasswordHasher = {
    async verify(password, stored) {
      counts.verify++;
      await hold;
      return passwordHasher.verify(password, stored);
    },
    hash(password) {
      counts.hash++;
      return passwordHasher.hash(password);
    },
    needsRehash: (stored) => passwordHasher.needsRehash(stored),
  };
  return { hasher, counts };
}

/** Another connection pool on the same PostgreSQL database, as a second API process has. */
async function openSecondPool(db: Database): Promise<Database> {
  const [row] = await db.query<{ name: string }>('SELECT current_database() AS name');
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${row!.name}`;
  return openPostgres(url.toString(), { max: 5 });
}

/** How many attempts ended how: an error code, or "signed in". */
function outcomes(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === 'fulfilled' ? 'signed in' : ((r.reason as AppError).code ?? String(r.reason));
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return tally;
}

async function rejectsWith(promise: Promise<unknown> | (() => unknown), code: string): Promise<AppError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but it succeeded`);
}

test('argon2id hashes at the OWASP cost: the right password verifies, others do not, and the parameters travel with the hash', async () => {
  const stored = await hashPassword(PASSWORD);
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,p=1,t=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.equal(await verifyPassword(PASSWORD, stored), true);
  assert.equal(await verifyPassword(`${PASSWORD} `, stored), false);
  assert.equal(await verifyPassword('', stored), false);
  assert.notEqual(await hashPassword(PASSWORD), stored, 'a new salt each time');
  assert.equal(needsRehash(stored), false);
  const cheaper = stored.replace('m=19456', 'm=4096');
  assert.equal(await verifyPassword(PASSWORD, cheaper), false, 'parameters are part of the result');
  assert.equal(needsRehash(cheaper), true, 'a lower cost is upgraded');
  assert.equal(await verifyPassword(PASSWORD, 'md5$abc'), false);
  assert.equal(await verifyPassword(PASSWORD, '$argon2id$garbage'), false);
  assert.equal(await verifyPassword(PASSWORD, 'scrypt$0$8$1$aa$bb'), false);
  assert.equal(await verifyPassword(PASSWORD, 'scrypt$1073741824$8$1$aa$bb'), false, 'bounded cost');
});

test('scrypt hashes made before argon2id still verify, and are marked for an upgrade', async () => {
  const legacy = await legacyScryptHash(PASSWORD);
  assert.equal(await verifyPassword(PASSWORD, legacy), true);
  assert.equal(await verifyPassword(`${PASSWORD}!`, legacy), false);
  assert.equal(needsRehash(legacy), true);
});

test('CSRF: the token of the cookie passes; another token, no cookie or a foreign origin are refused', async () => {
  const cookie = 'a'.repeat(43);
  const token = csrfTokenFor(cookie);
  const allowedOrigins = ['http://127.0.0.1:3000'];
  assertCsrf({ cookieValue: cookie, presented: token, origin: undefined, allowedOrigins });
  assertCsrf({ cookieValue: cookie, presented: token, origin: 'http://127.0.0.1:3000', allowedOrigins });
  await rejectsWith(
    () =>
      assertCsrf({
        cookieValue: cookie,
        presented: csrfTokenFor('b'.repeat(43)),
        origin: undefined,
        allowedOrigins,
      }),
    'csrf_failed',
  );
  await rejectsWith(
    () => assertCsrf({ cookieValue: cookie, presented: undefined, origin: undefined, allowedOrigins }),
    'csrf_failed',
  );
  await rejectsWith(
    () => assertCsrf({ cookieValue: null, presented: token, origin: undefined, allowedOrigins }),
    'csrf_failed',
  );
  await rejectsWith(
    () =>
      assertCsrf({ cookieValue: cookie, presented: token, origin: 'https://evil.example', allowedOrigins }),
    'csrf_failed',
  );
  await rejectsWith(
    () => assertCsrf({ cookieValue: cookie, presented: token, origin: 'null', allowedOrigins }),
    'csrf_failed',
  );
});

await forEachBackend('dashboard accounts', ({ backend, db }) => {
  let owner: User;

  test('setup: a code exists only while nobody has an account; the right code creates the owner once', async () => {
    assert.equal(await hasUsers(db()), false);
    const first = await createSetupToken(db());
    const second = await createSetupToken(db());
    assert.ok(first && second && first !== second);
    // Nothing of the code itself is stored.
    const stored = await db().query<{ token_hash: Buffer }>('SELECT token_hash FROM setup_tokens');
    assert.equal(stored.length, 2);
    assert.ok(stored.every((r) => !Buffer.from(r.token_hash).toString().includes(first)));

    await rejectsWith(
      completeSetup(db(), { token: 'x'.repeat(43), email: 'owner@example.com', password: PASSWORD }),
      'setup_token_invalid',
    );
    await rejectsWith(
      completeSetup(db(), { token: first, email: 'not-an-email', password: PASSWORD }),
      'invalid_account',
    );
    await rejectsWith(
      completeSetup(db(), { token: first, email: 'owner@example.com', password: 'short' }),
      'invalid_account',
    );
    await rejectsWith(
      completeSetup(db(), {
        token: first,
        email: 'owner@example.com',
        password: PASSWORD,
        confirm: 'other password!',
      }),
      'invalid_account',
    );
    assert.equal(await hasUsers(db()), false, 'refused setups created nothing');

    owner = await completeSetup(db(), {
      token: first,
      email: ' Owner@Example.com ',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    assert.equal(owner.role, 'owner');
    assert.equal(owner.email, 'Owner@Example.com');
    assert.match(owner.id, /^usr_/);
    // Every code is spent: the second one no longer works, and no new one is handed out.
    await rejectsWith(
      completeSetup(db(), { token: second, email: 'x@example.com', password: PASSWORD }),
      'setup_done',
    );
    assert.equal((await db().query('SELECT 1 FROM setup_tokens')).length, 0);
    assert.equal(await createSetupToken(db()), null);
    const [row] = await db().query<{ password_hash: string }>('SELECT password_hash FROM users');
    assert.ok(row && !row.password_hash.includes(PASSWORD) && row.password_hash.startsWith('$argon2id$'));
  });

  test('sign-in: the right password opens a session (emails ignore case); a wrong one or an unknown email does not', async () => {
    const session = await signIn(db(), {
      email: 'owner@EXAMPLE.com',
      password: PASSWORD,
      clientIp: '192.0.2.1',
    });
    assert.equal(session.user.id, owner.id);
    const resumed = await resumeSession(db(), session.token);
    assert.equal(resumed?.user.email, 'Owner@Example.com');
    await rejectsWith(
      signIn(db(), { email: 'owner@example.com', password: 'wrong password!', clientIp: '192.0.2.1' }),
      'sign_in_failed',
    );
    await rejectsWith(
      signIn(db(), { email: 'nobody@example.com', password: PASSWORD, clientIp: '192.0.2.1' }),
      'sign_in_failed',
    );
    await rejectsWith(
      signIn(db(), { email: undefined, password: undefined, clientIp: '192.0.2.1' }),
      'sign_in_failed',
    );
    // The session row stores a hash, not the cookie's value.
    const rows = await db().query<{ token_hash: Buffer }>('SELECT token_hash FROM user_sessions');
    assert.ok(rows.some((r) => Buffer.from(r.token_hash).equals(hashToken(session.token))));
    await endSession(db(), session.token);
    assert.equal(await resumeSession(db(), session.token), null, 'signed out');
    assert.equal(await resumeSession(db(), 'garbage'), null);
    assert.equal(await resumeSession(db(), undefined), null);
  });

  test('sessions end when idle past their expiry', async () => {
    const session = await signIn(db(), {
      email: 'owner@example.com',
      password: PASSWORD,
      clientIp: '192.0.2.9',
    });
    await db().query(
      "UPDATE user_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1",
      [hashToken(session.token)],
    );
    assert.equal(await resumeSession(db(), session.token), null);
  });

  test('a session in use moves its idle expiry forward, never past 30 days from its start', async () => {
    const session = await signIn(db(), {
      email: 'owner@example.com',
      password: PASSWORD,
      clientIp: '192.0.2.9',
    });
    const hash = hashToken(session.token);
    await db().query(
      "UPDATE user_sessions SET last_seen_at = now() - interval '1 hour', created_at = now() - interval '29 days 23 hours', expires_at = now() + interval '1 minute' WHERE token_hash = $1",
      [hash],
    );
    assert.ok(await resumeSession(db(), session.token));
    const [row] = await db().query<{ left_s: number }>(
      'SELECT extract(epoch FROM expires_at - now())::float8 AS left_s FROM user_sessions WHERE token_hash = $1',
      [hash],
    );
    assert.ok(row!.left_s > 3000 && row!.left_s <= 3600, `capped at the 30-day end (${row!.left_s} s left)`);
  });

  test('sign-in throttling: after 5 failures for an email even the right password waits; the address limit covers many emails', async () => {
    const limits = { windowSeconds: 900, perEmail: 5, perClient: 8 };
    for (let i = 0; i < 5; i++) {
      await rejectsWith(
        signIn(
          db(),
          { email: 'owner@example.com', password: `wrong ${i} password`, clientIp: '198.51.100.1' },
          limits,
        ),
        'sign_in_failed',
      );
    }
    const throttled = await rejectsWith(
      signIn(db(), { email: 'Owner@example.com', password: PASSWORD, clientIp: '198.51.100.2' }, limits),
      'sign_in_throttled',
    );
    const retryAfter = Number(throttled.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter}`);
    assert.equal(throttled.status, 429);
    // When the window has passed, the right password works again and clears the count.
    await db().query("UPDATE sign_in_attempts SET at = at - interval '16 minutes'");
    await signIn(db(), { email: 'owner@example.com', password: PASSWORD, clientIp: '198.51.100.1' }, limits);
    assert.equal(
      (await db().query("SELECT 1 FROM sign_in_attempts WHERE email_key = 'owner@example.com'")).length,
      0,
    );

    // One address guessing many emails.
    for (let i = 0; i < 8; i++) {
      await rejectsWith(
        signIn(
          db(),
          { email: `guess${i}@example.com`, password: 'wrong password!', clientIp: '203.0.113.7' },
          limits,
        ),
        'sign_in_failed',
      );
    }
    await rejectsWith(
      signIn(db(), { email: 'owner@example.com', password: PASSWORD, clientIp: '203.0.113.7' }, limits),
      'sign_in_throttled',
    );
    // Another address is not affected.
    await signIn(db(), { email: 'owner@example.com', password: PASSWORD, clientIp: '203.0.113.8' }, limits);
  });

  test('60 parallel wrong passwords for one email: exactly 5 are checked; the other 55 are refused without hashing', async () => {
    await db().query('DELETE FROM sign_in_attempts');
    const { hasher, counts } = countingHasher();
    // On PostgreSQL half the attempts come through a second pool, as from another API process.
    const second = backend === 'postgres' ? await openSecondPool(db()) : db();
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) =>
        signIn(
          i % 2 === 0 ? db() : second,
          { email: 'owner@example.com', password: `wrong guess ${i}`, clientIp: `198.18.0.${i}` },
          DEFAULT_THROTTLE,
          hasher,
        ),
      ),
    );
    if (second !== db()) await second.close();
    assert.deepEqual(outcomes(results), { sign_in_failed: 5, sign_in_throttled: 55 });
    assert.equal(counts.verify, 5, 'a refused attempt never reaches the hash');
    const rows = await db().query<{ in_flight: boolean }>(
      "SELECT in_flight FROM sign_in_attempts WHERE email_key = 'owner@example.com'",
    );
    assert.deepEqual(
      rows.map((r) => r.in_flight),
      [false, false, false, false, false],
      'five failures recorded, none left in flight',
    );
  });

  test('40 parallel wrong passwords from one address over 40 emails: exactly 20 are checked', async () => {
    await db().query('DELETE FROM sign_in_attempts');
    const { hasher, counts } = countingHasher();
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        signIn(
          db(),
          { email: `guess${i}@example.com`, password: 'wrong password!', clientIp: '198.18.1.1' },
          DEFAULT_THROTTLE,
          hasher,
        ),
      ),
    );
    assert.deepEqual(outcomes(results), { sign_in_failed: 20, sign_in_throttled: 20 });
    assert.equal(counts.verify, 20);
  });

  test('40 parallel right passwords: the 5 attempts the limit allows are checked and sign in, 35 are refused unhashed', async () => {
    await db().query('DELETE FROM sign_in_attempts');
    // The checks are held until every attempt has been let through or refused, so all 40 race for
    // the reservations while none has finished: the count cannot depend on how fast hashing is.
    let release!: () => void;
    const { hasher, counts } = countingHasher(new Promise<void>((resolve) => (release = resolve)));
    let settled = 0;
    const attempts = Array.from({ length: 40 }, () =>
      Promise.allSettled([
        signIn(
          db(),
          { email: 'owner@example.com', password: PASSWORD, clientIp: '198.18.2.1' },
          DEFAULT_THROTTLE,
          hasher,
        ),
      ]).then(([result]) => {
        settled++;
        return result!;
      }),
    );
    const deadline = Date.now() + 30_000;
    while (counts.verify + settled < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    release();
    const results = await Promise.all(attempts);
    assert.deepEqual(outcomes(results), { 'signed in': 5, sign_in_throttled: 35 });
    assert.equal(counts.verify, 5);
    assert.equal(
      (await db().query("SELECT 1 FROM sign_in_attempts WHERE email_key = 'owner@example.com'")).length,
      0,
      'successful attempts leave no rows',
    );
  });

  test('a failure still being checked counts after another attempt of the email succeeds', async () => {
    await db().query('DELETE FROM sign_in_attempts');
    let release!: () => void;
    const held = countingHasher(new Promise<void>((resolve) => (release = resolve)));
    const wrong = signIn(
      db(),
      { email: 'owner@example.com', password: 'wrong password!', clientIp: '198.18.3.1' },
      DEFAULT_THROTTLE,
      held.hasher,
    ).catch((error: AppError) => error.code);
    const deadline = Date.now() + 30_000;
    while (held.counts.verify < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await signIn(db(), { email: 'owner@example.com', password: PASSWORD, clientIp: '198.18.3.2' });
    release();
    assert.equal(await wrong, 'sign_in_failed');
    const rows = await db().query<{ in_flight: boolean }>(
      "SELECT in_flight FROM sign_in_attempts WHERE email_key = 'owner@example.com'",
    );
    assert.deepEqual(rows, [{ in_flight: false }]);
  });

  test('a sign-in replaces a hash made with older parameters (scrypt) by an argon2id one, once', async () => {
    const legacy = await legacyScryptHash(PASSWORD);
    await db().query('UPDATE users SET password_hash = $2 WHERE id = $1', [owner.id, legacy]);
    const { hasher, counts } = countingHasher();
    await signIn(
      db(),
      { email: 'owner@example.com', password: PASSWORD, clientIp: '198.18.4.1' },
      DEFAULT_THROTTLE,
      hasher,
    );
    assert.equal(counts.hash, 1);
    const [row] = await db().query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE id = $1',
      [owner.id],
    );
    assert.match(row!.password_hash, /^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    assert.equal(await verifyPassword(PASSWORD, row!.password_hash), true);
    await signIn(
      db(),
      { email: 'owner@example.com', password: PASSWORD, clientIp: '198.18.4.1' },
      DEFAULT_THROTTLE,
      hasher,
    );
    assert.equal(counts.hash, 1, 'a current hash is kept');
    // A wrong password upgrades nothing.
    await db().query('UPDATE users SET password_hash = $2 WHERE id = $1', [owner.id, legacy]);
    await rejectsWith(
      signIn(
        db(),
        { email: 'owner@example.com', password: 'wrong password!', clientIp: '198.18.4.2' },
        DEFAULT_THROTTLE,
        hasher,
      ),
      'sign_in_failed',
    );
    assert.equal(counts.hash, 1);
    await signIn(db(), { email: 'owner@example.com', password: PASSWORD, clientIp: '198.18.4.1' });
  });

  test('invitations: the owner invites, the code creates a member once, members cannot invite', async () => {
    const { invitation, token } = await inviteUser(db(), owner, ' writer@example.com ');
    assert.equal(invitation.email, 'writer@example.com');
    assert.deepEqual(
      (await listPendingInvitations(db())).map((i) => i.id),
      [invitation.id],
    );
    await rejectsWith(inviteUser(db(), owner, 'OWNER@example.com'), 'account_exists');
    await rejectsWith(inviteUser(db(), owner, 'nope'), 'invalid_account');
    await rejectsWith(
      acceptInvitation(db(), { token: 'z'.repeat(43), password: PASSWORD }),
      'invitation_invalid',
    );
    await rejectsWith(acceptInvitation(db(), { token, password: 'short' }), 'invalid_account');

    const member = await acceptInvitation(db(), {
      token,
      password: 'writer password 1',
      confirm: 'writer password 1',
    });
    assert.equal(member.role, 'member');
    assert.equal(member.email, 'writer@example.com');
    await rejectsWith(acceptInvitation(db(), { token, password: 'writer password 2' }), 'invitation_invalid');
    assert.deepEqual(await listPendingInvitations(db()), []);
    const session = await signIn(db(), {
      email: 'writer@example.com',
      password: 'writer password 1',
      clientIp: '192.0.2.5',
    });

    await rejectsWith(inviteUser(db(), member, 'other@example.com'), 'owner_only');
    await rejectsWith(removeMember(db(), member, owner.id), 'owner_only');
    await rejectsWith(removeMember(db(), owner, owner.id), 'user_not_found');

    const revoked = await inviteUser(db(), owner, 'late@example.com');
    await rejectsWith(revokeInvitation(db(), member, revoked.invitation.id), 'owner_only');
    await revokeInvitation(db(), owner, revoked.invitation.id);
    await rejectsWith(revokeInvitation(db(), owner, revoked.invitation.id), 'invitation_not_found');
    await rejectsWith(
      acceptInvitation(db(), { token: revoked.token, password: PASSWORD }),
      'invitation_invalid',
    );

    const expired = await inviteUser(db(), owner, 'slow@example.com');
    await db().query("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1", [
      expired.invitation.id,
    ]);
    await rejectsWith(
      acceptInvitation(db(), { token: expired.token, password: PASSWORD }),
      'invitation_invalid',
    );

    // Removing a member ends their sessions.
    await removeMember(db(), owner, member.id);
    assert.equal(await resumeSession(db(), session.token), null);
    assert.deepEqual(
      (await listUsers(db())).map((u) => u.email),
      ['Owner@Example.com'],
    );
  });

  test('two accepted invitations for one email: the second is refused, not a duplicate account', async () => {
    const a = await inviteUser(db(), owner, 'twice@example.com');
    const b = await inviteUser(db(), owner, 'Twice@example.com');
    await acceptInvitation(db(), { token: a.token, password: PASSWORD });
    await rejectsWith(acceptInvitation(db(), { token: b.token, password: PASSWORD }), 'account_exists');
    assert.equal(
      (await listUsers(db())).filter((u) => u.email.toLowerCase() === 'twice@example.com').length,
      1,
    );
  });

  test('on a database without accounts again: an expired code is refused, and racing setups create one owner', async () => {
    await db().query('DELETE FROM users');
    await db().query(
      "INSERT INTO setup_tokens (token_hash, expires_at) VALUES ($1, now() - interval '1 second')",
      [hashToken('e'.repeat(43))],
    );
    await rejectsWith(
      completeSetup(db(), { token: 'e'.repeat(43), email: 'x@example.com', password: PASSWORD }),
      'setup_token_invalid',
    );
    const token = await createSetupToken(db());
    const results = await Promise.allSettled([
      completeSetup(db(), { token, email: 'a@example.com', password: PASSWORD }),
      completeSetup(db(), { token, email: 'b@example.com', password: PASSWORD }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.match((refused.reason as AppError).code, /^(setup_done|setup_token_invalid)$/);
    assert.equal((await listUsers(db())).length, 1);
  });
});
