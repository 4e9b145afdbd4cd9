-- Dashboard accounts: people who sign in to the dashboard (not API keys), their server-side
-- sessions, the one-time setup tokens printed on the console while no account exists,
-- invitations sent by the owner, and failed sign-in attempts for throttling.
-- Every token (session, setup, invitation) is stored only as its SHA-256; the token itself
-- exists only in the cookie or link it was given in.

CREATE TABLE users (
  id            text PRIMARY KEY,                      -- usr_ + random base62
  email         text NOT NULL,                         -- as typed; unique ignoring case
  password_hash text NOT NULL,                         -- scrypt$N$r$p$salt$hash (src/modules/accounts/passwords.ts)
  role          text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_unique ON users (lower(email));

CREATE TABLE user_sessions (
  token_hash   bytea PRIMARY KEY,
  user_id      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL                    -- idle expiry, moved forward on use, never past created_at + 30 days
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);
CREATE INDEX user_sessions_expires ON user_sessions (expires_at);

CREATE TABLE setup_tokens (
  token_hash bytea PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

CREATE TABLE invitations (
  id          text PRIMARY KEY,                        -- inv_ + random base62; safe to show
  token_hash  bytea NOT NULL UNIQUE,
  email       text NOT NULL,
  role        text NOT NULL CHECK (role IN ('member')),
  invited_by  text REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX invitations_created ON invitations (created_at DESC);

-- One row per refused sign-in; counted over a sliding window per email and per client address.
CREATE TABLE sign_in_failures (
  id        bigserial PRIMARY KEY,
  email_key text NOT NULL,                             -- lower-cased email as typed (known or not)
  client_ip text NOT NULL,
  at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_email ON sign_in_failures (email_key, at);
CREATE INDEX sign_in_failures_ip ON sign_in_failures (client_ip, at);
