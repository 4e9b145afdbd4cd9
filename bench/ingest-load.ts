// The load generator of bench/ingest.ts, run in a worker thread so it has its own event loop
// (and, on this two-core machine, its own core) apart from the server it measures. Keeps
// `connections` keep-alive connections busy, each sending the next prepared body as soon as the
// previous answer arrived, and counts the answers that came back in the measured window.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  /** Records per body, to turn requests into events. */
  recordsPerBody: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** The status a successful answer has. */
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  events: number;
  seconds: number;
  /** Events of every answer with the expected status, warm-up and drain included: all the server did. */
  servedEvents: number;
  /** Answers with another status, by status ("error" for transport failures). */
  unexpected: Record<string, number>;
  /** This load generator thread's own CPU time (µs) since it started: its start-up, warm-up and drain included. */
  cpuUs: number;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const target = new URL(spec.url);
  let measuring = false;
  let stopping = false;
  let requests = 0;
  let served = 0;
  const unexpected: Record<string, number> = {};
  let next = 0;

  const send = (body: string) =>
    new Promise<number | 'error'>((resolve) => {
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { ...spec.headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve('error'));
      req.end(body);
    });

  const loop = async () => {
    while (!stopping) {
      const body = spec.bodies[next++ % spec.bodies.length]!;
      const status = await send(body);
      if (status === spec.expectStatus) served++;
      if (!measuring || stopping) continue;
      if (status === spec.expectStatus) requests++;
      else unexpected[String(status)] = (unexpected[String(status)] ?? 0) + 1;
    }
  };

  const loops = Array.from({ length: spec.connections }, loop);
  await new Promise((resolve) => setTimeout(resolve, spec.warmupMs));
  measuring = true;
  const start = process.hrtime.bigint();
  await new Promise((resolve) => setTimeout(resolve, spec.durationMs));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  measuring = false;
  stopping = true;
  await Promise.all(loops);
  agent.destroy();
  // The thread's whole life: loading this module counts as the load generator's too.
  const cpu = process.threadCpuUsage();
  return {
    cpuUs: cpu.user + cpu.system,
    requests,
    events: requests * spec.recordsPerBody,
    seconds,
    servedEvents: served * spec.recordsPerBody,
    unexpected,
  };
}

if (parentPort !== null) {
  const port = parentPort;
  run(workerData as LoadSpec).then((result) => port.postMessage(result));
}
