// Installation tokens for a GitHub App, without @octokit/auth-app (not a dependency): a JWT signed
// with the App's private key (RS256, node:crypto) is exchanged through Octokit for an installation
// token (POST /app/installations/{id}/access_tokens), which is kept until shortly before it
// expires (GitHub issues them for one hour).
//
// The JWT follows GitHub's "Generating a JSON Web Token (JWT) for a GitHub App": iat 60 s in the
// past (clock drift), exp at most 10 minutes ahead, iss the App's id.
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { CodeHostError, type SecretScrubber } from '../errors.ts';
import { requestSignal } from '../signals.ts';
import { createOctokit } from './octokit-client.ts';
import { toCodeHostError } from './octokit-errors.ts';

/** A token is renewed when it has less than this left, so a job never starts with one about to lapse. */
export const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
const JWT_LIFETIME_S = 9 * 60;

export interface AppCredentials {
  appId: string;
  privateKey: string;
  installationId: string;
}

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

export function signAppJwt(appId: string, key: KeyObject, nowMs: number = Date.now()): string {
  const now = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iat: now - 60, exp: now + JWT_LIFETIME_S, iss: appId }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${base64url(signature)}`;
}

export class InstallationTokens {
  readonly #credentials: AppCredentials;
  readonly #apiUrl: string;
  readonly #scrubber: SecretScrubber;
  readonly #timeoutMs: number;
  #key: KeyObject | undefined;
  #cached: { token: string; expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(credentials: AppCredentials, apiUrl: string, scrubber: SecretScrubber, timeoutMs: number) {
    this.#credentials = credentials;
    this.#apiUrl = apiUrl;
    this.#scrubber = scrubber;
    this.#timeoutMs = timeoutMs;
    scrubber.add(credentials.privateKey);
  }

  /** A valid installation token: the cached one, or a new one. Concurrent callers share one exchange. */
  async token(signal?: AbortSignal): Promise<string> {
    if (this.#cached && this.#cached.expiresAt - RENEW_BEFORE_EXPIRY_MS > Date.now())
      return this.#cached.token;
    this.#pending ??= this.#exchange(signal).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Forgets the cached token (after the host refused it, e.g. revoked). */
  invalidate(): void {
    this.#cached = undefined;
  }

  #signingKey(): KeyObject {
    if (!this.#key) {
      try {
        this.#key = createPrivateKey(this.#credentials.privateKey);
      } catch {
        // Never echo the key, not even part of it.
        throw new CodeHostError(
          'code_host_auth',
          'The GitHub App private key is not a readable PEM key (paste the whole .pem file GitHub generated).',
        );
      }
      if (this.#key.asymmetricKeyType !== 'rsa') {
        throw new CodeHostError(
          'code_host_auth',
          'The GitHub App private key must be an RSA key (GitHub signs with RS256).',
        );
      }
    }
    return this.#key;
  }

  async #exchange(signal: AbortSignal | undefined): Promise<string> {
    const jwt = signAppJwt(this.#credentials.appId, this.#signingKey());
    this.#scrubber.add(jwt);
    const octokit = createOctokit(this.#apiUrl, jwt);
    const installationId = Number(this.#credentials.installationId);
    if (!Number.isSafeInteger(installationId) || installationId <= 0) {
      throw new CodeHostError(
        'code_host_auth',
        `The GitHub App installation id must be a positive number; got "${this.#credentials.installationId}".`,
      );
    }
    try {
      const { data } = await octokit.rest.apps.createInstallationAccessToken({
        installation_id: installationId,
        request: { signal: requestSignal(signal, this.#timeoutMs) },
      });
      this.#scrubber.add(data.token);
      const expiresAt = Date.parse(data.expires_at);
      this.#cached = { token: data.token, expiresAt: Number.isNaN(expiresAt) ? Date.now() : expiresAt };
      return data.token;
    } catch (error) {
      const failure = toCodeHostError(error, {
        scrubber: this.#scrubber,
        action: `exchange the GitHub App's JWT for a token of installation ${installationId}`,
        apiUrl: this.#apiUrl,
      });
      // Whatever GitHub says here, the App's credentials (id, key, installation) are at fault.
      if (failure.status === 404 || failure.status === 422) {
        throw new CodeHostError('code_host_auth', failure.message, { status: failure.status });
      }
      throw failure;
    }
  }
}
