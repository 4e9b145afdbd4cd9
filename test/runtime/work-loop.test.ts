// Unit tests of the runtime's loop and pump with in-process queues: the logic of waking, bounded
// concurrency and stopping. The loops built on it are tested against real databases
// (test/jobs, test/webhooks, test/analytics/staged-views.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type NotificationSource, Pump, WorkLoop, type WorkLoopOptions } from '../../src/runtime/index.ts';

const HOUR_MS = 3_600_000;

/** An in-process NOTIFY: listeners are told each payload. */
class FakeChannel implements NotificationSource {
  readonly listeners = new Set<(payload: string) => void>();
  async listen(_channel: string, onNotify: (payload: string) => void) {
    this.listeners.add(onNotify);
    return async () => void this.listeners.delete(onNotify);
  }
  notify(payload = ''): void {
    for (const listener of this.listeners) listener(payload);
  }
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), what);
}

function loopOver(queue: number[], overrides: Partial<WorkLoopOptions<number>> = {}) {
  const channel = new FakeChannel();
  const claimErrors: unknown[] = [];
  const loop = new WorkLoop<number>({
    concurrency: 2,
    pollIntervalMs: HOUR_MS,
    notifications: { source: channel, channel: 'test' },
    claim: async (limit) => queue.splice(0, limit),
    run: async () => {},
    onClaimError: (error) => void claimErrors.push(error),
    onRunError: () => {},
    ...overrides,
  });
  return { loop, channel, claimErrors };
}

test('a notification starts a claim round at once; the poll is not needed', async () => {
  const queue: number[] = [];
  const ran: number[] = [];
  const { loop, channel } = loopOver(queue, { run: async (item) => void ran.push(item) });
  await loop.start();
  queue.push(1, 2, 3);
  channel.notify();
  await until('all three items ran', () => ran.length === 3);
  assert.deepEqual(ran, [1, 2, 3]);
  await loop.stop();
  assert.equal(channel.listeners.size, 0, 'stop stops listening');
});

test('no more items run at once than the concurrency; a finishing one makes room for the next', async () => {
  const queue = [1, 2, 3, 4, 5];
  const gates = new Map(queue.map((item) => [item, deferred()]));
  let running = 0;
  let most = 0;
  const done: number[] = [];
  const { loop } = loopOver(queue, {
    concurrency: 2,
    run: async (item) => {
      running++;
      most = Math.max(most, running);
      await gates.get(item)!.promise;
      running--;
      done.push(item);
    },
  });
  await loop.start();
  await until('two items started', () => running === 2);
  assert.deepEqual(queue, [3, 4, 5], 'nothing is claimed beyond the room');
  for (const gate of gates.values()) gate.resolve();
  await until('all items ran', () => done.length === 5);
  assert.equal(most, 2);
  await loop.stop();
});

test('claimBatch: 1 claims one item per call, until the room is full', async () => {
  const limits: number[] = [];
  const queue = [1, 2, 3];
  const gate = deferred();
  const { loop } = loopOver(queue, {
    concurrency: 3,
    claimBatch: 1,
    claim: async (limit) => {
      limits.push(limit);
      return queue.splice(0, limit);
    },
    run: () => gate.promise,
  });
  await loop.start();
  await until('three items claimed', () => loop.inFlight === 3);
  assert.deepEqual(limits, [1, 1, 1]);
  gate.resolve();
  await loop.stop();
});

test('an intercepted notification does not wake the loop', async () => {
  const queue: number[] = [];
  let claims = 0;
  const channel = new FakeChannel();
  const { loop } = loopOver(queue, {
    notifications: { source: channel, channel: 'test', intercept: (payload) => payload === 'mine' },
    claim: async (limit) => {
      claims++;
      return queue.splice(0, limit);
    },
  });
  await loop.start();
  await until('the first round ran', () => claims === 1);
  queue.push(7);
  channel.notify('mine');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(claims, 1, 'no round for an intercepted payload');
  channel.notify('other');
  await until('a second round', () => claims >= 2);
  await loop.stop();
});

test('a failed claim round is reported and the next wake claims again', async () => {
  const queue = [1];
  let failNext = true;
  const ran: number[] = [];
  const { loop, channel, claimErrors } = loopOver(queue, {
    claim: async (limit) => {
      if (failNext) {
        failNext = false;
        throw new Error('database away');
      }
      return queue.splice(0, limit);
    },
    run: async (item) => void ran.push(item),
  });
  await loop.start();
  await until('the failure was reported', () => claimErrors.length === 1);
  channel.notify();
  await until('the item ran', () => ran.length === 1);
  await loop.stop();
});

test('stop waits out the grace, then aborts what still runs and waits for it to end', async () => {
  const queue = [1, 2];
  const quick = deferred();
  const ended: string[] = [];
  const { loop } = loopOver(queue, {
    run: async (item, signal) => {
      if (item === 1) {
        await quick.promise;
        ended.push('quick');
        return;
      }
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      ended.push(`aborted: ${(signal.reason as Error).message}`);
    },
  });
  await loop.start();
  await until('both run', () => loop.inFlight === 2);
  const stopping = loop.stop(20);
  quick.resolve();
  await stopping;
  assert.deepEqual(ended, ['quick', 'aborted: shutting down']);
  assert.equal(loop.inFlight, 0);
});

test('a wake during a claim round is not lost: the round runs once more', async () => {
  const queue = [1];
  const firstClaim = deferred();
  let claims = 0;
  const ran: number[] = [];
  const { loop, channel } = loopOver(queue, {
    claim: async (limit) => {
      claims++;
      if (claims === 1) await firstClaim.promise;
      return queue.splice(0, limit);
    },
    run: async (item) => void ran.push(item),
  });
  await loop.start();
  await until('the first round is claiming', () => claims === 1);
  queue.push(2);
  channel.notify();
  firstClaim.resolve();
  await until('both items ran', () => ran.length === 2);
  await loop.stop();
});

test('the loop wakes for the next item due, sooner than the poll', async () => {
  const due: number[] = [];
  const ran: number[] = [];
  const { loop } = loopOver(due, {
    run: async (item) => void ran.push(item),
    untilNextDueMs: async () => (ran.length === 0 ? 10 : HOUR_MS),
  });
  await loop.start();
  due.push(9); // no notification: only the timer for the due item finds it
  await until('the due item ran', () => ran.length === 1);
  await loop.stop();
});

test('pump: wakeWithin keeps the earlier timer, and a stopped pump never runs again', async () => {
  let runs = 0;
  const pump = new Pump({
    work: async () => {
      runs++;
      return undefined;
    },
  });
  pump.wakeWithin(0);
  pump.wakeWithin(HOUR_MS); // a timer is armed already: this does not push it back
  await until('the pump ran', () => runs === 1);
  pump.wakeWithin(HOUR_MS);
  await pump.stop();
  pump.wake();
  pump.wakeWithin(0);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(runs, 1);
});

test('wakes that come before a round has claimed are that round’s; one after its claim gets another', async () => {
  const queue: number[] = [];
  const ran: number[] = [];
  let gate = deferred();
  let looks = 0;
  let claims = 0;
  // Items hold their slot until the end: a finishing item wakes the loop too.
  const running = deferred();
  const { loop, channel } = loopOver(queue, {
    beforeClaim: async () => {
      looks++;
      await gate.promise;
    },
    claim: async (limit) => {
      claims++;
      return queue.splice(0, limit);
    },
    run: async (item) => {
      ran.push(item);
      await running.promise;
    },
  });
  await loop.start();
  gate.resolve();
  await until('the start round ended', () => claims === 1);
  await new Promise((r) => setTimeout(r, 20));
  const [looksBefore, claimsBefore] = [looks, claims];
  gate = deferred();
  // A job created in this process: its NOTIFY and the in-process nudge arrive together.
  queue.push(1);
  channel.notify();
  loop.wake();
  loop.wake();
  gate.resolve();
  await until('the item ran', () => ran.length === 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual([looks - looksBefore, claims - claimsBefore], [1, 1], 'one round for the three wakes');

  // A wake after the round sent its claim may be about an item that claim did not see.
  let claimGate = deferred();
  const claiming = deferred();
  const { loop: second } = loopOver(queue, {
    claim: async (limit) => {
      claiming.resolve();
      await claimGate.promise;
      return queue.splice(0, limit);
    },
    run: async (item) => void ran.push(item),
  });
  await second.start();
  await claiming.promise;
  queue.push(2);
  second.wake();
  const first = claimGate;
  claimGate = { promise: Promise.resolve(), resolve: () => {} };
  first.resolve();
  await until('the item queued after the claim ran', () => ran.includes(2));
  running.resolve();
  await loop.stop();
  await second.stop();
});
