// What happened during each job's pickup (create request → first model request), for finding what
// makes the slow tail (issue 17): per job the database statements, git processes and HTTP
// requests that overlap its pickup, with their times from the create request, and what the
// process and the machine did meanwhile:
//
// - stalls: the event loop late by more than STALL_MS on a timer of TICK_MS, with the process's
//   own CPU time over the stall. A stall whose CPU time is near its length is this process's
//   JavaScript (or its GC, or PGlite's WebAssembly, which runs on the main thread); one with
//   little CPU is the process waiting for a core (the machine's load).
// - gc: V8's collections (PerformanceObserver 'gc'), with their kind.
// - running: the machine's runnable threads (/proc/stat procs_running), sampled every
//   RUNNING_EVERY ticks; above the 2 cores means something waits for a core.
//
// bench/agent.ts --steps FILE writes one JSON line per later job and prints a summary
// (`steps:` lines): the slowest pickups with their steps, against the median ones.
import diagnostics from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { percentile } from './stats.ts';

const TICK_MS = 2;
const STALL_MS = 4;
const RUNNING_EVERY = 5;

interface Span {
  at: number;
  ms: number;
  text: string;
}
interface JobWindow {
  id: string;
  start: number;
  pickup: number;
  claim: number;
}
interface Recorded {
  gitCalls: readonly { at: number; ms: number; args: readonly string[] }[];
  statements: readonly { at: number; ms: number; text: string }[];
  answered: readonly { receivedAt: number }[];
}

/** The main thread's time waiting for a core (run queue), ms, from /proc/thread-self/schedstat. */
function runQueueWaitMs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6;
}

/** Time in which some task of the machine waited for a core (PSI, /proc/pressure/cpu), ms. */
function cpuPressureMs(): number {
  const match = /total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
  return match ? Number(match[1]) / 1000 : Number.NaN;
}

function procsRunning(): number {
  const match = /procs_running (\d+)/.exec(readFileSync('/proc/stat', 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

export function startPickupRecorder() {
  const stalls: (Span & { cpu: number; wait: number })[] = [];
  const pressure: { at: number; ms: number }[] = [];
  const gcs: Span[] = [];
  const running: { at: number; n: number }[] = [];
  const requests: Span[] = [];

  let expected = Date.now() + TICK_MS;
  let cpu = process.cpuUsage();
  let wait = runQueueWaitMs();
  let ticks = 0;
  let timer: NodeJS.Timeout | null = null;
  const tick = () => {
    const now = Date.now();
    const late = now - expected;
    const used = process.cpuUsage(cpu);
    const waited = runQueueWaitMs();
    if (late > STALL_MS) {
      const ms = late;
      stalls.push({
        at: expected,
        ms,
        cpu: (used.user + used.system) / 1000,
        wait: waited - wait,
        text: 'stall',
      });
    }
    cpu = process.cpuUsage();
    wait = waited;
    if (++ticks % RUNNING_EVERY === 0) {
      running.push({ at: now, n: procsRunning() });
      pressure.push({ at: now, ms: cpuPressureMs() });
    }
    expected = Date.now() + TICK_MS;
    timer = setTimeout(tick, TICK_MS);
  };
  timer = setTimeout(tick, TICK_MS);

  const gcKinds: Record<number, string> = {
    1: 'scavenge',
    2: 'mark-compact',
    4: 'incremental',
    8: 'weak-callbacks',
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gcs.push({
        at: performance.timeOrigin + entry.startTime,
        ms: entry.duration,
        text: gcKinds[kind] ?? `gc ${kind}`,
      });
    }
  });
  observer.observe({ entryTypes: ['gc'] });

  // Outbound HTTP from node:http (the ls-refs probe, code-host calls) and from fetch (the model).
  const open = new WeakMap<object, { at: number; text: string }>();
  const onStart = (message: unknown) => {
    const { request } = message as { request: { method: string; host: string; path: string } };
    open.set(request, { at: Date.now(), text: `http ${request.method} ${request.path.split('?')[0]}` });
  };
  const onFinish = (message: unknown) => {
    const { request } = message as { request: object };
    const started = open.get(request);
    if (started) requests.push({ ...started, ms: Date.now() - started.at });
  };
  const onFetchCreate = (message: unknown) => {
    const { request } = message as { request: { method: string; path: string } };
    open.set(request, { at: Date.now(), text: `fetch ${request.method} ${request.path}` });
  };
  const onFetchHeaders = (message: unknown) => onFinish(message);
  diagnostics.subscribe('http.client.request.start', onStart);
  diagnostics.subscribe('http.client.response.finish', onFinish);
  diagnostics.subscribe('undici:request:create', onFetchCreate);
  diagnostics.subscribe('undici:request:headers', onFetchHeaders);

  const overlapping = <T extends { at: number; ms: number }>(spans: readonly T[], from: number, to: number) =>
    spans.filter((s) => s.at <= to && s.at + s.ms >= from);

  /** Everything that overlaps one job's pickup, times relative to its create request. */
  const pickupOf = (job: JobWindow, recorded: Recorded) => {
    const from = job.start;
    const to = job.start + job.pickup;
    const rel = <T extends { at: number; ms: number }>(s: T) => ({
      ...s,
      at: s.at - from,
      ms: Math.round(s.ms * 10) / 10,
    });
    const git = recorded.gitCalls.map((c) => ({
      at: c.at - c.ms,
      ms: c.ms,
      text: `git ${c.args
        .filter((a) => !a.startsWith('-'))
        .slice(0, 3)
        .join(' ')}`,
    }));
    const samples = running.filter((r) => r.at >= from && r.at <= to).map((r) => r.n);
    // Machine-wide wait for a core over the pickup (the samples nearest its two ends).
    const before = pressure.findLast((p) => p.at <= from);
    const after = pressure.find((p) => p.at >= to);
    return {
      id: job.id,
      start: job.start,
      pickup: job.pickup,
      claim: job.claim,
      statements: overlapping(recorded.statements, from, to).map(rel),
      git: overlapping(git, from, to).map(rel),
      http: overlapping(requests, from, to).map(rel),
      stalls: overlapping(stalls, from, to).map(rel),
      gc: overlapping(gcs, from, to).map(rel),
      running: samples,
      psi: before && after ? Math.round(((after.ms - before.ms) / (after.at - before.at)) * 100) : null,
      load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
    };
  };

  return {
    stop() {
      if (timer) clearTimeout(timer);
      observer.disconnect();
      diagnostics.unsubscribe('http.client.request.start', onStart);
      diagnostics.unsubscribe('http.client.response.finish', onFinish);
      diagnostics.unsubscribe('undici:request:create', onFetchCreate);
      diagnostics.unsubscribe('undici:request:headers', onFetchHeaders);
    },
    async write(file: string, jobs: readonly JobWindow[], recorded: Recorded) {
      const lines = jobs.map((job) => JSON.stringify(pickupOf(job, recorded)));
      await writeFile(file, `${lines.join('\n')}\n`);
    },
    /** The slowest pickups against the median one, split into the pickup's steps. */
    summary(jobs: readonly JobWindow[], recorded: Recorded): string[] {
      const sorted = [...jobs].sort((a, b) => a.pickup - b.pickup);
      const describe = (job: JobWindow) => {
        const p = pickupOf(job, recorded);
        const steps = pickupSteps(p);
        const stalled = p.stalls.reduce((t, s) => t + s.ms, 0);
        const waited = p.stalls.reduce((t, s) => t + s.wait, 0);
        const gc = p.gc.reduce((t, g) => t + g.ms, 0);
        const beside = p.git.filter((g) => g.at < job.pickup && !g.text.startsWith('git fetch')).length;
        return `pickup ${job.pickup} ms = ${Object.entries(steps)
          .map(([name, ms]) => `${name} ${ms}`)
          .join(
            ', ',
          )}; loop stalled ${Math.round(stalled)} ms (main thread waiting for a core ${Math.round(waited)} ms), gc ${Math.round(gc)} ms, git processes beside ${beside}, runnable threads max ${p.running.length ? Math.max(...p.running) : '-'}, cpu pressure ${p.psi ?? '-'} %`;
      };
      const all = jobs.map((job) => pickupSteps(pickupOf(job, recorded)));
      const names = [...new Set(all.flatMap((steps) => Object.keys(steps)))];
      const out = [
        `p50/p90/p99/max ms over ${jobs.length}: ${names
          .map(
            (name) =>
              `${name} ${[50, 90, 99, 100]
                .map((q) =>
                  percentile(
                    all.map((steps) => steps[name] ?? 0),
                    q,
                  ),
                )
                .join('/')}`,
          )
          .join(', ')}`,
        ...sorted.slice(-5).map((job) => `slow: ${describe(job)}`),
      ];
      out.push(`median: ${describe(sorted[Math.floor(sorted.length / 2)]!)}`);
      return out;
    },
  };
}

/**
 * A pickup split at its landmarks (ms): the create request's transaction, the claim, the
 * worker's and runner's reads up to the branch being recorded, up to the ls-refs request (the
 * mirror lock, the mirror's refs read from files), the request (or the fetch), and from its
 * answer to the model request (instructions, the request itself).
 */
export function pickupSteps(p: {
  pickup: number;
  statements: readonly Span[];
  http: readonly Span[];
  git: readonly Span[];
}): Record<string, number> {
  const end = (s: Span) => s.at + s.ms;
  // A transaction's COMMIT line is recorded when it ends (traced-database.ts).
  const created = p.statements.find((s) => s.text.startsWith('COMMIT'))?.at ?? 0;
  const claim = p.statements.find((s) => s.text.startsWith('WITH claimed'));
  const branch = p.statements.find((s) => s.text.startsWith('UPDATE jobs SET branch'));
  const probe =
    p.http.find((h) => h.text.includes('git-upload-pack')) ??
    p.git.find((g) => g.text.startsWith('git fetch'));
  const claimed = claim ? end(claim) : created;
  const recorded = branch ? end(branch) : claimed;
  const asked = probe?.at ?? recorded;
  const answered = probe ? end(probe) : asked;
  const r = Math.round;
  return {
    create: r(created),
    claim: r(claimed - created),
    reads: r(recorded - claimed),
    'to probe': r(asked - recorded),
    [probe?.text.startsWith('git') ? 'fetch' : 'ls-refs']: r(answered - asked),
    'to model': r(p.pickup - answered),
  };
}
