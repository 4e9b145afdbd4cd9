// The runtime for background work: the one way docwright runs work outside a request.
//
// - Claim with a lease: a queue lives in a table; each worker claims due rows with
//   FOR UPDATE SKIP LOCKED and a lease (in the owner's SQL), so any number of workers, in any
//   number of processes, share one database; a dead worker's rows come back when the lease ends.
// - Wake: a NOTIFY on the queue's channel (sent in the transaction that makes work) starts a claim
//   round at once; a timer wakes it for work that falls due later (a retry), and a poll catches
//   what no notification tells (expired leases, notifications lost while LISTEN reconnected).
// - Concurrency: at most `concurrency` items run at once; a finishing item wakes the loop.
// - Stop: no new claims, the items under way get a grace period, then their signal is aborted
//   and the loop waits for them to end (their owner hands them back or lets the lease run out).
// - Retry: one policy (tries in all, doubling or scheduled waits, jitter, Retry-After) for
//   every retry, whether waited in process or stored as a row's next due time.
//
// WorkLoop is the queue loop (jobs, webhook deliveries); Pump is its single-flight core with a
// timer, used alone by work that is not claimed (the staged-views merger). retry-policy.ts
// imports nothing, so adapters may import it directly.

export { Pump, type PumpOptions } from './pump.ts';
export {
  backoffDelayMs,
  EQUAL_JITTER,
  nextRetryDelayMs,
  type RetryHooks,
  type RetryJitter,
  type RetryPolicy,
  retrying,
} from './retry-policy.ts';
export { type NotificationSource, WorkLoop, type WorkLoopOptions } from './work-loop.ts';
