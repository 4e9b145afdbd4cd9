// Which repository URLs the workspace accepts: http(s) only, because the token travels as an HTTP
// header, and without a user or password inside, because a credential in a URL ends up in
// .git/config, in FETCH_HEAD and in git's own messages. Refs are checked before they reach argv.
import { WorkspaceFailure } from './failures.ts';

export function checkRepositoryUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WorkspaceFailure('invalid_repository_url', 'The repository URL is not a valid URL.');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new WorkspaceFailure(
      'invalid_repository_url',
      `The repository URL must use https:// (or http://), not ${parsed.protocol}`,
    );
  if (parsed.username || parsed.password)
    throw new WorkspaceFailure(
      'invalid_repository_url',
      'The repository URL must not contain a user name or password; the token is sent as a header.',
    );
  return url;
}

/**
 * A branch, tag or commit name that is safe to pass to git as an argument: no leading "-" (it
 * would be read as an option), nothing git refuses in ref names.
 */
export function checkRefName(ref: string, what = 'ref'): string {
  const ok =
    ref.length > 0 &&
    ref.length <= 250 &&
    /^[A-Za-z0-9._/+-]+$/.test(ref) &&
    !ref.startsWith('-') &&
    !ref.startsWith('/') &&
    !ref.endsWith('/') &&
    !ref.endsWith('.') &&
    !ref.endsWith('.lock') &&
    !ref.includes('..') &&
    !ref.includes('//') &&
    !ref.split('/').some((part) => part.startsWith('.'));
  if (!ok)
    throw new WorkspaceFailure(
      'ref_not_found',
      `The ${what} "${ref.slice(0, 100)}" is not a valid git ref name.`,
    );
  return ref;
}
