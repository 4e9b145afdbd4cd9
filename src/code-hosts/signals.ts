// Every request a code host adapter makes is bounded in time and stops when the job is cancelled.

/** The caller's signal (cancel, shutdown) combined with a per-request timeout. */
export function requestSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}
