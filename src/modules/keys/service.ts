// Issuing, listing, revoking and checking admin API keys. Only a hash of a key is stored; the key
// itself is returned once, by createKey.
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../util/random.ts';
import { getProject } from '../projects/index.ts';
import { keyErrors } from './errors.ts';
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from './key-format.ts';
import { forgetKeyInProcess } from './key-invalidation.ts';
import {
  type ApiKeyRow,
  insertKey,
  KEY_SCOPES,
  type KeyScope,
  selectKeyBySecretHash,
  selectKeysOfProject,
  updateKeyLastUsed,
  updateKeyRevoked,
} from './queries.ts';

/** A key as it may be shown: never the secret, only its recognisable prefix. */
export interface ApiKeyInfo {
  id: string;
  projectId: string;
  name: string;
  scope: KeyScope;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const toInfo = (r: ApiKeyRow): ApiKeyInfo => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  scope: r.scope,
  prefix: displayPrefix(r.lookup),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export async function createKey(
  db: Queryable,
  input: { projectId: string; name?: string; scope?: string; expiresAt?: Date | null },
): Promise<ApiKeyInfo & { key: string }> {
  await getProject(db, input.projectId);
  const scope = (input.scope ?? 'admin') as KeyScope;
  if (!KEY_SCOPES.includes(scope)) {
    throw keyErrors.invalid_key_request(
      `scope must be one of ${KEY_SCOPES.join(', ')}; got "${input.scope}".`,
    );
  }
  const name = input.name?.trim() || `${scope} key`;
  if (name.length > 200) throw keyErrors.invalid_key_request('name must be at most 200 characters.');
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
    throw keyErrors.invalid_key_request('expiry must be in the future.');
  }
  const generated = generateApiKey();
  const row = await insertKey(db, {
    id: newId('key'),
    projectId: input.projectId,
    name,
    scope,
    lookup: generated.lookup,
    secretHash: generated.secretHash,
    expiresAt,
  });
  return { ...toInfo(row), key: generated.key };
}

export async function listKeys(db: Queryable, projectId: string): Promise<ApiKeyInfo[]> {
  await getProject(db, projectId);
  return (await selectKeysOfProject(db, projectId)).map(toInfo);
}

export async function revokeKey(db: Queryable, id: string): Promise<ApiKeyInfo> {
  const row = await updateKeyRevoked(db, id);
  if (!row) throw keyErrors.key_not_found(`No API key has the id "${id}".`);
  // This process's caches forget the key now; others when the statement's NOTIFY reaches them.
  // (Inside a caller's transaction the NOTIFY comes at its commit, after this: a cache that read
  // the row again meanwhile is told again then.)
  forgetKeyInProcess(row.id);
  return toInfo(row);
}

/** How often a key's last_used_at is written at most (queries.ts updateKeyLastUsed says the same). */
export const LAST_USED_EVERY_MS = 60_000;

export type KeyCheck =
  | { ok: true; key: ApiKeyInfo }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

/**
 * Checks a presented key. The key's row is found by the SHA-256 of the whole key, never by its
 * lookup characters, so a known lookup with a wrong secret and an unknown key run the same code,
 * the same statement and the same index probe, and both get no row: nothing in the answer or its
 * time tells them apart. (The database compares digests of the presented key; how long that takes
 * says nothing useful, since no one can choose the bytes of a SHA-256.)
 */
export async function checkKey(db: Queryable, presented: string, now = new Date()): Promise<KeyCheck> {
  if (!parseApiKey(presented)) return { ok: false, reason: 'malformed' };
  return (await checkKeyHash(db, hashApiKey(presented), now)).check;
}

/**
 * checkKey after the format check, from the key's SHA-256: the verdict, and for a usable key when
 * its last use is now recorded (ms), so the key cache knows when to write it next.
 */
export async function checkKeyHash(
  db: Queryable,
  secretHash: Buffer,
  now: Date,
): Promise<{ check: KeyCheck; lastUsedMs: number }> {
  const row = await selectKeyBySecretHash(db, secretHash);
  if (!row) return { check: { ok: false, reason: 'unknown' }, lastUsedMs: 0 };
  if (row.revoked_at !== null) return { check: { ok: false, reason: 'revoked' }, lastUsedMs: 0 };
  if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime())
    return { check: { ok: false, reason: 'expired' }, lastUsedMs: 0 };
  // The UPDATE itself only writes once a minute; skipping it when the row just read says it would
  // not write saves a round trip on nearly every request of a busy key (ingestion).
  let lastUsedMs = row.last_used_at?.getTime() ?? null;
  if (lastUsedMs === null || now.getTime() - lastUsedMs >= LAST_USED_EVERY_MS) {
    await updateKeyLastUsed(db, row.id);
    lastUsedMs = now.getTime();
  }
  return { check: { ok: true, key: toInfo(row) }, lastUsedMs };
}

/** Records a use of a key whose verdict was cached (the UPDATE writes at most once a minute). */
export async function recordKeyUse(db: Queryable, id: string): Promise<void> {
  await updateKeyLastUsed(db, id);
}

/** Parses an expiry such as 30d, 12h, 90m or an ISO 8601 time; null when malformed. */
export function parseExpiry(raw: string, now = new Date()): Date | null {
  const relative = /^(\d+)\s*([mhdw])$/.exec(raw.trim());
  if (relative) {
    const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
      relative[2] as 'm' | 'h' | 'd' | 'w'
    ];
    const n = Number(relative[1]);
    return n > 0 ? new Date(now.getTime() + n * unitMs) : null;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) return null;
  const absolute = new Date(raw.trim());
  return Number.isNaN(absolute.getTime()) ? null : absolute;
}
