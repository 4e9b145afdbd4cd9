// The code-host adapter's options for a project: its kind, base URL and API URL as the project
// stores them (set with --code-host-url and --code-host-api-url, or in the dashboard).
import type { CodeHostCredentials, CodeHostOptions } from '../code-hosts/contract.ts';
import type { Project } from '../modules/projects/index.ts';

export function codeHostOptionsOf(project: Project, credentials: CodeHostCredentials): CodeHostOptions {
  return {
    kind: project.codeHost.kind,
    baseUrl: project.codeHost.baseUrl,
    apiUrl: project.codeHost.apiUrl,
    credentials,
  };
}
