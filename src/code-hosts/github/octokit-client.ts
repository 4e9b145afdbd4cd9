// One place that builds Octokit clients the way docwright uses them: a given API root, a
// recognisable user agent, and no console output (Octokit logs deprecation warnings to console by
// default; a job's problems are reported through its error instead).
import { Octokit } from '@octokit/rest';

const SILENT_LOG = { debug() {}, info() {}, warn() {}, error() {} };

/** A client sending `token` (a personal/installation token, or an App JWT, which Octokit sends as a bearer). */
export function createOctokit(apiUrl: string, token: string): Octokit {
  return new Octokit({ auth: token, baseUrl: apiUrl, userAgent: 'docwright', log: SILENT_LOG });
}
