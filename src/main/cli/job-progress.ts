// `--wait` for the jobs commands: follows the job's event stream (polling when the server has
// none) with one progress line on stderr, rewritten in place on a terminal and one line per step
// otherwise (logs, CI), then prints what became of the job on stdout. Ctrl-C stops waiting, not
// the job, and says how to look at it later.
import type { DocwrightClient, Job } from '../../sdk/index.ts';
import { EXIT_JOB_FAILED, WaitInterrupted } from './client-options.ts';
import { describeEvent } from './client-render.ts';

export interface WaitOutput {
  /** Where progress goes (stderr). */
  progress: NodeJS.WriteStream;
}

export async function waitWithProgress(
  client: DocwrightClient,
  projectId: string,
  jobId: string,
  options: { timeoutMs?: number; quiet?: boolean },
  output: WaitOutput = { progress: process.stderr },
): Promise<Job> {
  const line = progressLine(output.progress, jobId, options.quiet === true);
  const controller = new AbortController();
  const onInterrupt = () =>
    controller.abort(
      new WaitInterrupted(
        `Stopped waiting; job ${jobId} goes on. Check it with: docwright jobs get ${jobId}`,
      ),
    );
  process.once('SIGINT', onInterrupt);
  let lastStatus = '';
  let sawEvent = false;
  let polls = 0;
  try {
    return await client.waitForJob(projectId, jobId, {
      signal: controller.signal,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      onEvent: (event) => {
        sawEvent = true;
        line.show(describeEvent(event));
      },
      onPoll: (job) => {
        // The events tell more, from the job's start, even for a job that is already over: the
        // first read comes before them and is not shown, or a job that failed at once would
        // read "failed", "queued", "failed: ...". Later reads speak only without a stream.
        polls += 1;
        if (polls === 1 || sawEvent || job.status === lastStatus) return;
        line.show(job.status);
        lastStatus = job.status;
      },
    });
  } finally {
    process.off('SIGINT', onInterrupt);
    line.end();
  }
}

/** The exit status of a command that waited: 3 when the job failed. */
export function exitStatusOf(job: Job): number {
  return job.status === 'failed' ? EXIT_JOB_FAILED : 0;
}

function progressLine(stream: NodeJS.WriteStream, jobId: string, quiet: boolean) {
  const started = Date.now();
  const live = stream.isTTY === true;
  let shown = false;
  const elapsed = () => {
    const s = Math.floor((Date.now() - started) / 1000);
    return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  };
  return {
    show(text: string) {
      if (quiet) return;
      const content = `[${elapsed()}] ${jobId}: ${text}`;
      if (live) {
        const width = stream.columns ?? 80;
        stream.write(`\r\x1b[2K${content.length >= width ? `${content.slice(0, width - 2)}…` : content}`);
        shown = true;
      } else {
        stream.write(`${content}\n`);
      }
    },
    end() {
      if (live && shown) stream.write('\n');
    },
  };
}
