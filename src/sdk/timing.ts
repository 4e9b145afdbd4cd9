// Waiting that an AbortSignal can cut short, backoff with jitter, and one signal that follows
// another: small helpers shared by the event stream and waitForJob.

/** Resolves after ms, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface Backoff {
  /** The next delay in ms (grows up to the maximum), with jitter. */
  next(): number;
  reset(): void;
}

/**
 * Exponential backoff with "equal jitter": each delay is half the current step plus a random
 * part of the other half, so many clients started together spread out instead of polling in step.
 */
export function backoff(initialMs: number, maxMs: number, factor = 1.6, random = Math.random): Backoff {
  let step = initialMs;
  return {
    next() {
      const delay = step / 2 + random() * (step / 2);
      step = Math.min(maxMs, step * factor);
      return Math.round(delay);
    },
    reset() {
      step = initialMs;
    },
  };
}

/**
 * A controller whose signal aborts when the parent does (with the parent's reason), so a child
 * operation can be stopped alone while the caller's signal still stops everything.
 */
export function childController(parent?: AbortSignal): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  if (!parent) return { controller, release() {} };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, release() {} };
  }
  const forward = () => controller.abort(parent.reason);
  parent.addEventListener('abort', forward, { once: true });
  return { controller, release: () => parent.removeEventListener('abort', forward) };
}
