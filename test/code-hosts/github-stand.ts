// The GitHub fake with Prism in front of it, checking both directions against GitHub's own
// OpenAPI description (a subset built for the run). Clients talk to prism.url.
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { GitHubFake, type GitHubFakeOptions } from '../stand-ins/github-fake.ts';
import { type GitHubDescription, writeGitHubSubset } from '../stand-ins/github-openapi-subset.ts';
import { type PrismProxy, startPrismProxy } from '../stand-ins/prism.ts';

export interface CheckedGitHub {
  fake: GitHubFake;
  prism: PrismProxy;
  /** What clients use as the API root: Prism's address plus the fake's API prefix. */
  apiUrl: string;
  stop(): Promise<void>;
}

export async function startCheckedGitHub(
  options: GitHubFakeOptions & { description?: GitHubDescription } = {},
): Promise<CheckedGitHub> {
  const fake = new GitHubFake(options);
  await fake.start();
  const specFile = await writeGitHubSubset({
    description: options.description ?? 'api.github.com',
    pathPrefix: options.apiPrefix ?? '',
  });
  let prism: PrismProxy;
  try {
    prism = await startPrismProxy(specFile, fake.url);
  } catch (error) {
    await fake.stop();
    throw error;
  }
  return {
    fake,
    prism,
    apiUrl: `${prism.url}${options.apiPrefix ?? ''}`,
    stop: async () => {
      await prism.stop();
      await fake.stop();
      await rm(dirname(specFile), { recursive: true, force: true });
    },
  };
}
