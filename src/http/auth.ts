// Bearer-key authentication and authorisation for every /v1 and /v2 route, run before the body
// is read. Order of checks: a usable key (401), then the project (403), then the scope (403).
import type { FastifyRequest } from 'fastify';
import { httpErrors } from '../errors/request-errors.ts';
import type { ApiKeyChecker, KeyScope } from '../modules/keys/index.ts';
import type { RouteAccess } from './context.ts';

const SCOPE_ALLOWS: Record<KeyScope, readonly RouteAccess[]> = {
  admin: ['read', 'write', 'ingest'],
  read: ['read'],
  ingest: ['ingest'],
};

const WWW_AUTHENTICATE = { 'www-authenticate': 'Bearer realm="docwright"' };

export function isApiPath(url: string): boolean {
  return url.startsWith('/v1/') || url.startsWith('/v2/');
}

export async function authenticate(keys: ApiKeyChecker, request: FastifyRequest): Promise<void> {
  // A route that forgot to declare its access gets the strictest one.
  const access: RouteAccess = request.routeOptions.config.access ?? 'write';
  if (access === 'public') return;
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  if (!match) {
    throw httpErrors.missing_api_key(
      header === undefined
        ? 'This route needs an API key: send "Authorization: Bearer dw_...".'
        : 'The Authorization header must be "Bearer dw_..." with a docwright API key.',
      { headers: WWW_AUTHENTICATE },
    );
  }
  const result = await keys.check(match[1]!);
  if (!result.ok) {
    if (result.reason === 'malformed') {
      throw httpErrors.missing_api_key(
        'The bearer token is not a docwright API key (dw_ followed by 38 letters and digits, with a valid checksum).',
        { headers: WWW_AUTHENTICATE },
      );
    }
    const why = { unknown: 'is not known', revoked: 'has been revoked', expired: 'has expired' }[
      result.reason
    ];
    throw httpErrors.invalid_api_key(`The API key ${why}.`, {
      headers: { 'www-authenticate': 'Bearer realm="docwright", error="invalid_token"' },
    });
  }
  const key = result.key;
  const projectId = (request.params as { projectId?: string }).projectId;
  if (projectId !== undefined && projectId !== key.projectId) {
    // Same words whether or not that project exists: a key reveals nothing about other projects.
    throw httpErrors.project_forbidden(`This API key does not give access to project "${projectId}".`);
  }
  if (!SCOPE_ALLOWS[key.scope].includes(access)) {
    const needs = access === 'read' ? 'read or admin' : access === 'ingest' ? 'ingest or admin' : 'admin';
    throw httpErrors.insufficient_scope(
      `This operation needs a key with scope ${needs}; this key has scope ${key.scope}.`,
    );
  }
  request.apiKey = key;
}
