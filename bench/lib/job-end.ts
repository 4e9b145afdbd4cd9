// How bench/agent.ts waits for a job to end. The "job finished" log line is the job's end (its
// outcome committed), but the worker ends some runs without it: a lease lost, an outcome it could
// not write, a job failed as worker_lost by another claim round, a run handed back. Waiting for
// the line alone then waits forever, in silence: the benchmark prints nothing until all its jobs
// are done. So the job's row is also looked at now and then, and a job that has not ended after
// a while has its state printed once (what a stall needs to be understood: the job's row and
// events, what git and the database did last, what the process is waiting on) and, much later,
// fails the run rather than leaving it hanging.

/** Looks at the job's row this often while waiting (a later job takes ~0.3 s: seldom needed). */
const STATUS_EVERY_MS = 5_000;
/** Prints the state of a job that has not ended by then (a job takes seconds even under load). */
const REPORT_AFTER_MS = 120_000;
/** Gives up: past the run's own wall-time bound (15 min) and the push's and model's timeouts. */
const GIVE_UP_AFTER_MS = 16 * 60_000;
/** A state query that does not answer (the database itself stuck) is not waited for. */
const QUERY_TIMEOUT_MS = 5_000;

export interface JobEndWait {
  id: string;
  /** Settles when the worker logged "job finished" for the job. */
  finished: Promise<void>;
  /** The job's status from its row. */
  status: () => Promise<string | null>;
  /** Lines describing the job's state, printed when it has not ended after REPORT_AFTER_MS. */
  report: () => Promise<string[]>;
  write?: (line: string) => void;
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`(${what}: no answer within ${QUERY_TIMEOUT_MS} ms)`), QUERY_TIMEOUT_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves when the job has ended (logged, or its row no longer active); rejects on a stall. */
export async function waitForJobEnd(wait: JobEndWait): Promise<void> {
  const write = wait.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const start = Date.now();
  let ended = false;
  void wait.finished.then(() => {
    ended = true;
  });
  let reported = false;
  while (!ended) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      wait.finished,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STATUS_EVERY_MS);
      }),
    ]);
    clearTimeout(timer);
    if (ended) return;
    const status = await withTimeout(wait.status(), 'status');
    if (status !== 'active' && !(typeof status === 'string' && status.startsWith('('))) return;
    const waited = Date.now() - start;
    if (!reported && waited >= REPORT_AFTER_MS) {
      reported = true;
      write(`stall: job ${wait.id} has not ended after ${Math.round(waited / 1000)} s (status ${status})`);
      const lines = await withTimeout(wait.report(), 'report');
      for (const line of typeof lines === 'string' ? [lines] : lines) write(`stall: ${line}`);
    }
    if (waited >= GIVE_UP_AFTER_MS) {
      throw new Error(
        `job ${wait.id} did not end within ${Math.round(waited / 60_000)} min (status ${status})`,
      );
    }
  }
}
