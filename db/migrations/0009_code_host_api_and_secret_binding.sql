-- A project's code-host API root, for hosts whose API is not where the base URL implies (GitHub
-- Enterprise behind a proxy on a custom path). NULL: derived from the base URL or the repository.
ALTER TABLE projects ADD COLUMN code_host_api_url text;

-- Where a stored code-host credential (codeHostToken, githubAppPrivateKey) may be sent: the code
-- host kind, the repository's origin, the base URL and the API URL of the project when the
-- secret was set, as JSON (src/modules/projects/credential-binding.ts). A job whose destination
-- differs does not get the secret. NULL: a secret that is not bound (or one stored before this
-- column, which the next change of the project's code host binds to the values it replaces).
ALTER TABLE project_secrets ADD COLUMN bound_to text;
