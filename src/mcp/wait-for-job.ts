// create_job's bounded wait: the job is read again whenever one of its events is committed (the
// jobs module's event hub, one LISTEN per process), and at least every few seconds in case a
// notification is lost; the wait ends when the job is no longer active, at the deadline, or when
// the client cancels the call.
import { isFinalStatus, type JobView } from '../contract/index.ts';
import type { Database } from '../db/database.ts';
import { getJob, jobEventHub } from '../modules/jobs/index.ts';

/** The longest the job goes unread while waiting, and how often progress is reported. */
const RECHECK_MS = 5_000;

export interface WaitOutcome {
  job: JobView;
  /** True when the wait ended (deadline or cancellation) with the job still active. */
  stillActive: boolean;
}

export async function waitForJobEnd(
  db: Database,
  projectId: string,
  jobId: string,
  options: {
    seconds: number;
    signal: AbortSignal;
    onProgress: (elapsedSeconds: number, job: JobView) => Promise<void>;
  },
): Promise<WaitOutcome> {
  const started = Date.now();
  const deadline = started + options.seconds * 1000;
  let wake: (() => void) | null = null;
  // An event committed while the job is being read wakes the next wait at once.
  let notified = false;
  const unsubscribe = await jobEventHub(db).subscribe(jobId, () => {
    notified = true;
    wake?.();
  });
  try {
    for (;;) {
      notified = false;
      const job = await getJob(db, projectId, jobId);
      if (isFinalStatus(job.status)) return { job, stillActive: false };
      const left = deadline - Date.now();
      if (left <= 0 || options.signal.aborted) return { job, stillActive: true };
      await options.onProgress((Date.now() - started) / 1000, job);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', done);
          wake = null;
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, RECHECK_MS));
        options.signal.addEventListener('abort', done, { once: true });
        wake = done;
        if (notified) done();
      });
    }
  } finally {
    unsubscribe();
  }
}
