// One pass over the client's main calls, run unchanged in Node, Deno, Bun and Chromium by
// runtimes.test.ts. It imports nothing: the client module is passed in, so the same file serves a
// browser page too. It returns what it saw; the test compares that with the server's state.
import type * as Sdk from '../../../src/sdk/index.ts';

export interface SmokeInput {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  runtime: string;
}

export async function smoke(sdk: typeof Sdk, input: SmokeInput) {
  const client = new sdk.DocwrightClient({ baseUrl: input.baseUrl, apiKey: input.apiKey });
  const { projectId } = input;
  const job = await client.createJob(projectId, { prompt: `complete: from ${input.runtime}` });
  const events: string[] = [];
  const done = await client.waitForJob(projectId, job.id, {
    pollIntervalMs: 50,
    onEvent: (e) => events.push(e.type),
  });
  const streamed: number[] = [];
  for await (const event of client.streamJobEvents(projectId, job.id)) streamed.push(event.id);
  const resumed: number[] = [];
  for await (const event of client.streamJobEvents(projectId, job.id, { lastEventId: streamed[1] })) {
    resumed.push(event.id);
  }
  const listed: string[] = [];
  for await (const j of client.jobs(projectId, { pageSize: 1 })) listed.push(j.id);
  const report = await client.viewsReport(projectId, { pageSize: 2 });
  const csv = await client.viewsCsv(projectId, { pageSize: 2 });
  let notFound: unknown = null;
  try {
    await client.getJob(projectId, 'job_missing0000000');
  } catch (error) {
    const e = error as Sdk.DocwrightError;
    notFound = {
      typed: error instanceof sdk.NotFoundError,
      code: e.code,
      status: e.status,
      requestId: typeof e.requestId,
    };
  }
  return {
    jobId: job.id,
    status: done.status,
    prLink: done.prLink,
    events,
    streamed,
    resumed,
    listed,
    views: report.views,
    csvIsJsonAsCsv: csv === sdk.viewsToCsv(report.views),
    notFound,
  };
}
