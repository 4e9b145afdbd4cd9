// The server key on the embedded default: without DOCWRIGHT_SECRET_KEY, it is generated once
// into the data directory and read from there at every later start. loadConfig only reads the
// environment; the commands that open the database call withSecretKey right after it, so the
// file appears when it did before, at the start of the first such command.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError, decodeSecretKey, type LoadedConfig } from './config.ts';

/** The configuration with its key: the environment's, else the data directory's (created if need be). */
export function withSecretKey(config: LoadedConfig): Config {
  if (config.secretKey !== null)
    return { ...config, secretKey: config.secretKey, secretKeySource: 'environment' };
  return { ...config, secretKey: readOrCreateSecretKeyFile(config.dataDir), secretKeySource: 'data-dir' };
}

/** The embedded default keeps its key beside its database, readable by the owner only. */
export function readOrCreateSecretKeyFile(dataDir: string): Buffer {
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const key = decodeSecretKey(readFileSync(file, 'utf8').trim());
    if (key === null) throw new ConfigError([`${file} does not hold a valid key (64 hex characters).`]);
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readOrCreateSecretKeyFile(dataDir);
    throw error;
  }
  chmodSync(file, 0o600);
  return key;
}
