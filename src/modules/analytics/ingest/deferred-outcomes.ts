// Outcomes held back because an earlier record of the batch waits on a Web Bot Auth key
// directory. Rows are summed in batch order (a key's row is created by its first record), as
// they were when the whole batch was classified before summing; so from the first record that
// waits on, outcomes are kept here in order and handed on once every wait has settled. Waits run
// concurrently: one slow directory delays only the batch it is in.

import type { ViewFormat } from '../../../contract/index.ts';
import type { ClassificationOutcome, DropReason } from '../classification/types.ts';
import type { ViewKind } from '../classification/view-kind.ts';
import type { McpCall } from '../store/index.ts';
import { type OutcomeSink, type RecordExtras, reportOutcome } from './rollup-tally.ts';

type Replay = (sink: OutcomeSink, settled: readonly ClassificationOutcome[]) => void;

export class DeferredOutcomes implements OutcomeSink {
  readonly #replays: Replay[] = [];
  readonly #waits: Promise<ClassificationOutcome>[] = [];

  view(
    index: number,
    hour: number,
    kind: ViewKind,
    path: string,
    pathHasNul: boolean,
    ip?: string,
    userAgent?: string,
    referrer?: string,
    target?: string,
    format?: ViewFormat,
    mcp?: McpCall | null,
    sender?: object,
  ): void {
    this.#replays.push((sink) =>
      sink.view(index, hour, kind, path, pathHasNul, ip, userAgent, referrer, target, format, mcp, sender),
    );
  }

  drop(reason: DropReason): void {
    this.#replays.push((sink) => sink.drop(reason));
  }

  wait(
    index: number,
    hour: number,
    outcome: Promise<ClassificationOutcome>,
    ip?: string,
    userAgent?: string,
    referrer?: string,
    target?: string,
    extras?: RecordExtras,
  ): void {
    const slot = this.#waits.push(outcome) - 1;
    this.#replays.push((sink, settled) =>
      reportOutcome(sink, index, hour, settled[slot]!, ip, userAgent, referrer, target, extras),
    );
  }

  /** Waits for every held-back outcome, then hands them all on in batch order. */
  async replayInto(sink: OutcomeSink): Promise<void> {
    const settled = await Promise.all(this.#waits);
    for (const replay of this.#replays) replay(sink, settled);
  }
}
