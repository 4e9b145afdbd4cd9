// `docwright jobs create | get | list | wait | message | cancel | archive`: agent jobs through the
// HTTP API with the typed client (src/sdk), on the server at DOCWRIGHT_URL.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { JOB_STATUSES } from '../../contract/index.ts';
import type { Job } from '../../sdk/index.ts';
import {
  addClientOptions,
  CLIENT_VARIABLES,
  type ClientFlags,
  clientSettings,
  runClientCommand,
} from './client-options.ts';
import { renderJob, renderJobList, renderOutcome } from './client-render.ts';
import { exitStatusOf, waitWithProgress } from './job-progress.ts';
import { print, printJson } from './output.ts';
import { UsageError } from './usage-error.ts';

interface OutputFlags {
  json?: boolean;
}
interface WaitFlags {
  wait?: boolean;
  timeout?: number;
}

const settingsOf = (flags: ClientFlags) => clientSettings(flags, process.env);
type Client = ReturnType<typeof settingsOf>['client'];

function positiveInteger(name: string, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${max}.`);
    }
    return Number(raw);
  };
}

function addWaitOptions(command: Command): Command {
  return command
    .option('--wait', 'wait until the job ends, with a progress line on stderr; exit status 3 if it failed')
    .option(
      '--timeout <seconds>',
      'with --wait: stop waiting after this long (exit status 4; the job goes on)',
      positiveInteger('--timeout', 7 * 24 * 3600),
    );
}

/** "-" reads the prompt from standard input (long prompts, here-documents). */
async function promptFrom(argument: string): Promise<string> {
  if (argument !== '-') return argument;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Prints the job, or waits for it first; returns the exit status. */
async function showOrWait(
  client: Client,
  projectId: string,
  job: Job,
  flags: OutputFlags & WaitFlags,
  verb: string,
): Promise<number> {
  if (flags.timeout !== undefined && !flags.wait) throw new UsageError('--timeout needs --wait.');
  if (!flags.wait) {
    if (flags.json) printJson(job);
    else
      print(
        `${verb} job ${job.id} (${job.status}).\n${renderJob(job)}\n\nFollow it with: docwright jobs wait ${job.id}`,
      );
    return 0;
  }
  return waitAndShow(client, projectId, job.id, flags);
}

/** Waits for the job to end (with a progress line), prints it, and returns its exit status. */
async function waitAndShow(
  client: Client,
  projectId: string,
  jobId: string,
  flags: OutputFlags & { timeout?: number },
): Promise<number> {
  const done = await waitWithProgress(client, projectId, jobId, {
    ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }),
  });
  if (flags.json) printJson(done);
  else print(renderOutcome(done));
  return exitStatusOf(done);
}

const ENVIRONMENT_HELP = `\nServer, key and project come from --url, --key and --project, else:\n${Object.entries(
  CLIENT_VARIABLES,
)
  .map(([name, text]) => `  ${name.padEnd(19)}${text}`)
  .join('\n')}`;

export function registerJobsCommands(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('agent jobs through the API: create (and wait), get, list, wait, message, cancel, archive')
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExamples:\n` +
        '  export DOCWRIGHT_URL=http://127.0.0.1:3000 DOCWRIGHT_PROJECT=prj_123 DOCWRIGHT_API_KEY=dw_...\n' +
        '  docwright jobs create "Document the --dry-run flag" --wait\n' +
        '  docwright jobs list --status failed\n' +
        '  docwright jobs get job_123 --json | jq -r .prLink',
    );
  registerCreate(jobs);
  registerGet(jobs);
  registerList(jobs);
  registerWait(jobs);
  registerMessage(jobs);
  registerCancelAndArchive(jobs);
}

function registerCreate(jobs: Command): void {
  addWaitOptions(
    addClientOptions(
      jobs
        .command('create')
        .description('start an agent job; with --wait, follow it to its pull request')
        .argument('<prompt>', 'what the agent should do ("-" reads it from standard input)'),
    ),
  )
    .option(
      '--idempotency-key <key>',
      'makes a retried create safe: the same key and prompt within 24 h return the first job',
    )
    .option('--json', 'print the job as one JSON object (with --wait: the job once it ended)')
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExit status: 0 done (with --wait: the job completed or was archived), 1 the API or the\n` +
        'network refused, 2 mistyped, 3 the job failed (--wait), 4 --timeout passed (the job goes on).\n\n' +
        'Examples:\n' +
        '  docwright jobs create "Fix the typo in the install guide"\n' +
        '  docwright jobs create "Document the new --dry-run flag" --wait --timeout 1800\n' +
        '  docwright jobs create - --wait --json < prompt.txt\n' +
        '  docwright jobs create "Weekly link check" --idempotency-key "links-$(date +%F)" --json',
    )
    .action(
      async (rawPrompt: string, flags: ClientFlags & OutputFlags & WaitFlags & { idempotencyKey?: string }) =>
        runClientCommand(async () => {
          const { client, projectId } = settingsOf(flags);
          const prompt = await promptFrom(rawPrompt);
          const job = await client.createJob(
            projectId,
            { prompt },
            flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey },
          );
          return showOrWait(client, projectId, job, flags, 'Created');
        }),
    );
}

function registerGet(jobs: Command): void {
  addClientOptions(jobs.command('get').description('show a job').argument('<jobId>', 'the job (job_...)'))
    .option('--json', 'print the job as one JSON object')
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExamples:\n  docwright jobs get job_123\n  docwright jobs get job_123 --json | jq -r .status`,
    )
    .action(async (id: string, flags: ClientFlags & OutputFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = settingsOf(flags);
        const job = await client.getJob(projectId, id);
        if (flags.json) printJson(job);
        else print(renderJob(job));
      }),
    );
}

type ListFlags = ClientFlags & OutputFlags & { status?: Job['status']; limit?: number; all?: boolean };

function registerList(jobs: Command): void {
  addClientOptions(jobs.command('list').description("list the project's jobs, newest first"))
    .addOption(new Option('--status <status>', 'only jobs with this status').choices(JOB_STATUSES))
    .option('--limit <n>', 'show at most this many jobs (default 20)', positiveInteger('--limit', 1_000_000))
    .option('--all', 'show every job (all pages)')
    .option('--json', 'print a JSON array of jobs')
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExamples:\n  docwright jobs list\n  docwright jobs list --status active --all --json | jq -r '.[].id'`,
    )
    .action(async (flags: ListFlags) =>
      runClientCommand(async () => {
        if (flags.all && flags.limit !== undefined) throw new UsageError('give --limit or --all, not both.');
        const { client, projectId } = settingsOf(flags);
        const { found, more } = await listJobs(client, projectId, flags);
        if (flags.json) printJson(found);
        else print(renderJobList(found, more));
      }),
    );
}

/** The newest jobs up to the limit (20 unless --limit or --all), and whether more were left out. */
async function listJobs(
  client: Client,
  projectId: string,
  flags: ListFlags,
): Promise<{ found: Job[]; more: boolean }> {
  const limit = flags.all ? Number.POSITIVE_INFINITY : (flags.limit ?? 20);
  const found: Job[] = [];
  // One job more than shown is asked for, to tell whether the list goes on.
  for await (const job of client.jobs(projectId, {
    ...(flags.status ? { status: flags.status } : {}),
    pageSize: Math.min(100, limit + 1),
  })) {
    if (found.length === limit) return { found, more: true };
    found.push(job);
  }
  return { found, more: false };
}

function registerWait(jobs: Command): void {
  addClientOptions(
    jobs
      .command('wait')
      .description('wait until a job ends, with a progress line; exit status 3 if it failed')
      .argument('<jobId>', 'the job (job_...)'),
  )
    .option(
      '--timeout <seconds>',
      'stop waiting after this long (exit status 4; the job goes on)',
      positiveInteger('--timeout', 7 * 24 * 3600),
    )
    .option('--json', 'print the job once it ended as one JSON object')
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExample:\n  docwright jobs wait job_123 --timeout 600 && echo merged-ready`,
    )
    .action(async (id: string, flags: ClientFlags & OutputFlags & { timeout?: number }) =>
      runClientCommand(async () => {
        const { client, projectId } = settingsOf(flags);
        return waitAndShow(client, projectId, id, flags);
      }),
    );
}

function registerMessage(jobs: Command): void {
  addWaitOptions(
    addClientOptions(
      jobs
        .command('message')
        .description('send a follow-up to a completed or failed job (same branch and pull request)')
        .argument('<jobId>', 'the job (job_...)')
        .argument('<prompt>', 'what the agent should do next ("-" reads it from standard input)'),
    ),
  )
    .option('--json', 'print the job as one JSON object')
    .addHelpText(
      'after',
      `${ENVIRONMENT_HELP}\n\nExamples:\n  docwright jobs message job_123 "Also update the changelog" --wait`,
    )
    .action(async (id: string, rawPrompt: string, flags: ClientFlags & OutputFlags & WaitFlags) =>
      runClientCommand(async () => {
        const { client, projectId } = settingsOf(flags);
        const job = await client.sendMessage(projectId, id, { prompt: await promptFrom(rawPrompt) });
        return showOrWait(client, projectId, job, flags, 'Sent the follow-up to');
      }),
    );
}

function registerCancelAndArchive(jobs: Command): void {
  for (const [name, description, verb] of [
    ['cancel', 'cancel an active job (it becomes failed with error code "cancelled")', 'Cancelled'],
    ['archive', 'archive a finished job', 'Archived'],
  ] as const) {
    addClientOptions(jobs.command(name).description(description).argument('<jobId>', 'the job (job_...)'))
      .option('--json', 'print the job as one JSON object')
      .addHelpText('after', `${ENVIRONMENT_HELP}\n\nExample:\n  docwright jobs ${name} job_123`)
      .action(async (id: string, flags: ClientFlags & OutputFlags) =>
        runClientCommand(async () => {
          const { client, projectId } = settingsOf(flags);
          const job =
            name === 'cancel'
              ? await client.cancelJob(projectId, id)
              : await client.archiveJob(projectId, id);
          if (flags.json) printJson(job);
          else print(`${verb} job ${job.id}.\n${renderJob(job)}`);
        }),
      );
  }
}
