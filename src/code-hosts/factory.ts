// Picks the adapter for a project's code host. The job runner builds one per job from the
// project's code host settings and its stored (decrypted) credentials.
import type { CodeHost, CodeHostOptions } from './contract.ts';
import { CodeHostError } from './errors.ts';
import { GiteaCodeHost } from './gitea/adapter.ts';
import { GitHubCodeHost } from './github/adapter.ts';
import { GitLabCodeHost } from './gitlab/adapter.ts';

export function createCodeHost(options: CodeHostOptions): CodeHost {
  const { credentials } = options;
  if (credentials.type === 'token' && credentials.token.trim() === '') {
    throw new CodeHostError(
      'code_host_auth',
      `No ${options.kind} token is configured for this project (secret codeHostToken).`,
    );
  }
  switch (options.kind) {
    case 'github':
      return new GitHubCodeHost(options);
    case 'gitlab':
      return new GitLabCodeHost(options);
    case 'gitea':
      return new GiteaCodeHost(options);
    default:
      throw new CodeHostError(
        'pr_failed',
        `Unknown code host kind "${String(options.kind)}"; expected github, gitlab or gitea.`,
      );
  }
}
