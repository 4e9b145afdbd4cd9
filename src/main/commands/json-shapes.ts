// How projects and keys look in the CLI's output (--json) and on the control socket: plain JSON,
// times as ISO strings, and never a key's secret except in the one answer that creates it.
import type { ApiKeyInfo } from '../../modules/keys/index.ts';
import type { Project } from '../../modules/projects/index.ts';

export interface ProjectJson {
  id: string;
  name: string;
  repositoryUrl: string;
  ref: string;
  codeHost: { kind: string; baseUrl: string | null; apiUrl: string | null };
  model: string | null;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /**
   * Only after an update: code-host secrets stored for another code host than the project's
   * now, which jobs do not use until they are set again (storedFor describes where they were for).
   */
  suspendedSecrets?: { name: string; storedFor: string }[];
}

export function projectJson(p: Project): ProjectJson {
  return {
    id: p.id,
    name: p.name,
    repositoryUrl: p.repositoryUrl,
    ref: p.ref,
    codeHost: { kind: p.codeHost.kind, baseUrl: p.codeHost.baseUrl, apiUrl: p.codeHost.apiUrl },
    model: p.model,
    settings: p.settings as Record<string, unknown>,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export interface KeyJson {
  id: string;
  projectId: string;
  name: string;
  scope: string;
  /** The key's first characters, enough to recognise it; never the key. */
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function keyJson(k: ApiKeyInfo): KeyJson {
  return {
    id: k.id,
    projectId: k.projectId,
    name: k.name,
    scope: k.scope,
    prefix: k.prefix,
    createdAt: k.createdAt.toISOString(),
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
  };
}

/** The one answer that carries a key, in the field order the docs promise. */
export interface CreatedKeyJson {
  id: string;
  key: string;
  projectId: string;
  name: string;
  scope: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
}

function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}
