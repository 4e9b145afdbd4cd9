// The wire contract of docwright: the request and response bodies of the API as TypeBox schemas,
// the error codes, the job statuses and event types, and the CSV exports' columns and cell rules.
// The server validates and documents with it, and the client (src/sdk), the CLI and the dashboard
// read and write with it, so they cannot drift apart. It imports nothing else of docwright.
//
// csv.ts, error-codes.ts, job-events.ts, job-failure-codes.ts and job-statuses.ts import nothing
// at run time (typebox included): the client imports its run-time values from those files
// directly, so that it loads no package (see docs/client.md); the schema files need typebox.
export * from './analytics.ts';
export * from './automations.ts';
export * from './collect.ts';
export * from './csv.ts';
export * from './error-body.ts';
export * from './error-codes.ts';
export * from './error-registry.ts';
export * from './health.ts';
export * from './ingest.ts';
export * from './job-checks.ts';
export * from './job-ci.ts';
export * from './job-events.ts';
export * from './job-failure-codes.ts';
export * from './job-statuses.ts';
export * from './jobs.ts';
export * from './mcp-tools.ts';
export * from './mcp-tools-csv.ts';
export * from './params.ts';
export * from './referrals.ts';
export * from './referrals-csv.ts';
export * from './usage.ts';
export * from './view-formats.ts';
export * from './visitors.ts';
export * from './visitors-csv.ts';
