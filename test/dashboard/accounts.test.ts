// The accounts module on both backends: setup code, owner, sign-in with throttling, sessions,
// invitations, team changes, and the CSRF check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors/app-error.ts';
import { assertCsrf, csrfTokenFor } from '../../src/modules/accounts/csrf.ts';
import { hashPassword, verifyPassword } from '../../src/modules/accounts/passwords.ts';
import { endSession, resumeSession } from '../../src/modules/accounts/sessions.ts';
import { signIn } from '../../src/modules/accounts/sign-in.ts';
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
import { forEachBackend } from '../helpers/databases.ts';

const PASSWORD = 'correct horse battery';

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

test('scrypt hashes: the right password verifies, others do not, and the parameters travel with the hash', async () => {
  const stored = await hashPassword(PASSWORD);
  assert.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.equal(await verifyPassword(PASSWORD, stored), true);
  assert.equal(await verifyPassword(`${PASSWORD} `, stored), false);
  assert.equal(await verifyPassword('', stored), false);
  assert.notEqual(await hashPassword(PASSWORD), stored, 'a new salt each time');
  // A hash made with other parameters (as after raising them) still verifies with its own.
  const [, , , , salt] = stored.split('$');
  const cheaper = stored.replace('scrypt$32768$', 'scrypt$1024$');
  assert.equal(await verifyPassword(PASSWORD, cheaper), false, 'parameters are part of the result');
  assert.ok(salt);
  assert.equal(await verifyPassword(PASSWORD, 'md5$abc'), false);
  assert.equal(await verifyPassword(PASSWORD, 'scrypt$0$8$1$aa$bb'), false);
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

await forEachBackend('dashboard accounts', ({ db }) => {
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
    assert.ok(row && !row.password_hash.includes(PASSWORD) && row.password_hash.startsWith('scrypt$'));
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
    await db().query("UPDATE sign_in_failures SET at = at - interval '16 minutes'");
    await signIn(db(), { email: 'owner@example.com', password: PASSWORD, clientIp: '198.51.100.1' }, limits);
    assert.equal(
      (await db().query("SELECT 1 FROM sign_in_failures WHERE email_key = 'owner@example.com'")).length,
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
