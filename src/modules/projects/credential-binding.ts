// A stored code-host credential is bound to where it was stored for: the code host kind, the
// repository's origin (git pushes there) and the base and API URLs (the pull-request API is
// called there). A job whose destination differs does not get it, so changing a project's
// repository or code host cannot send its token to another host; the secret is suspended until
// it is set again for the new destination (or the project is changed back).
import type { CodeHostKind, Project } from './schemas.ts';

/** The secrets that authenticate to the code host and are therefore bound. */
export const HOST_BOUND_SECRETS = ['codeHostToken', 'githubAppPrivateKey'] as const;
export type HostBoundSecret = (typeof HOST_BOUND_SECRETS)[number];

export function isHostBound(name: string): name is HostBoundSecret {
  return (HOST_BOUND_SECRETS as readonly string[]).includes(name);
}

export interface CredentialDestination {
  kind: CodeHostKind;
  repositoryUrl: string;
  baseUrl: string | null;
  apiUrl: string | null;
}

interface Binding {
  kind: CodeHostKind;
  repository: string;
  baseUrl: string | null;
  apiUrl: string | null;
}

const normalised = (url: string | null) => (url === null ? null : url.trim().replace(/\/+$/, '') || null);

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The destination as stored beside the secret (compared as a string). */
export function bindingOf(destination: CredentialDestination): string {
  const binding: Binding = {
    kind: destination.kind,
    repository: originOf(destination.repositoryUrl),
    baseUrl: normalised(destination.baseUrl),
    apiUrl: normalised(destination.apiUrl),
  };
  return JSON.stringify(binding);
}

export function destinationOfProject(project: Project): CredentialDestination {
  return {
    kind: project.codeHost.kind,
    repositoryUrl: project.repositoryUrl,
    baseUrl: project.codeHost.baseUrl,
    apiUrl: project.codeHost.apiUrl,
  };
}

/** "github at https://github.com", with the base and API URLs when set: for messages. */
export function describeBinding(binding: string): string {
  try {
    const b = JSON.parse(binding) as Binding;
    const extras = [b.baseUrl ? `base URL ${b.baseUrl}` : '', b.apiUrl ? `API ${b.apiUrl}` : '']
      .filter(Boolean)
      .join(', ');
    return `${b.kind} at ${b.repository}${extras ? ` (${extras})` : ''}`;
  } catch {
    return 'another code host';
  }
}
