-- An API key is found by the SHA-256 of the whole key, not by its lookup characters: a key with
-- a known lookup and a wrong secret then costs exactly what an unknown key costs (one index
-- probe that finds nothing), so response times do not tell which lookups exist.
CREATE UNIQUE INDEX api_keys_secret_hash ON api_keys (secret_hash);
