-- An API key is found by the SHA-256 of the whole key, not by its lookup characters: a key with
-- a known lookup and a wrong secret then costs exactly what an unknown key costs (one index
-- probe that finds nothing), so response times do not tell which lookups exist.
CREATE UNIQUE INDEX api_keys_secret_hash ON api_keys (secret_hash);

-- Sign-in attempts are reserved before the password is checked: an attempt takes a row (in_flight)
-- in the same transaction that counts the window, under a lock per email and per address, so no
-- number of parallel requests or API processes gets more checks than the limits allow. A failure
-- keeps its row (in_flight becomes false); a success deletes it. Rows of a process that stopped
-- mid-check keep counting until they leave the window.
ALTER TABLE sign_in_failures RENAME TO sign_in_attempts;
ALTER INDEX sign_in_failures_email RENAME TO sign_in_attempts_email;
ALTER INDEX sign_in_failures_ip RENAME TO sign_in_attempts_ip;
ALTER TABLE sign_in_attempts ADD COLUMN in_flight boolean NOT NULL DEFAULT false;
