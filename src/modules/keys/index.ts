// The keys module's public surface: API keys (create, list, revoke, check) and their scopes.
// Other code imports this file, never the files beside it.
export { keyErrors } from './errors.ts';
export { ApiKeyCache, type ApiKeyCacheOptions, type ApiKeyChecker } from './key-cache.ts';
export { KEY_SCOPES, type KeyScope } from './queries.ts';
export { type ApiKeyInfo, checkKey, createKey, listKeys, parseExpiry, revokeKey } from './service.ts';
