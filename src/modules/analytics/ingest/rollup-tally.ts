// Where ingest-batch.ts puts each record's outcome: views summed into one row per rollup key
// (hour, class, agent, verification, path), drops counted per reason, rejections listed. Rows are
// found through nested Maps keyed by strings the classification already holds (a view kind's key,
// a cached path), so a record builds no key string of its own.

import type { ClassificationOutcome, DropReason } from '../classification/types.ts';
import { DROP_REASONS, isDropped } from '../classification/types.ts';
import { type ViewKind, viewKindOf } from '../classification/view-kind.ts';
import type { PageViewCount } from '../rollups.ts';
import type { RecordRejectionCode } from './record-validation.ts';
import type { Rejection } from './schemas.ts';

/** Receives one outcome per record, in batch order. */
export interface OutcomeSink {
  /** A page view of `path` in the hour starting at `hour` (epoch milliseconds). */
  view(index: number, hour: number, kind: ViewKind, path: string, pathHasNul: boolean): void;
  drop(reason: DropReason): void;
}

/** Hands a general pipeline outcome to a sink. */
export function reportOutcome(
  sink: OutcomeSink,
  index: number,
  hour: number,
  outcome: ClassificationOutcome,
): void {
  if (isDropped(outcome)) sink.drop(outcome.drop);
  else sink.view(index, hour, viewKindOf(outcome), outcome.path, outcome.path.includes('\0'));
}

type RowsByPath = Map<string, PageViewCount>;
interface HourRows {
  /** One Date for every row of the hour: rows are read, never changed, downstream. */
  hour: Date;
  byKind: Map<string, RowsByPath>;
}

export class RollupTally implements OutcomeSink {
  /** One row per rollup key, in the order the keys first appeared. */
  readonly rows: PageViewCount[] = [];
  accepted = 0;
  readonly rejected: Rejection[] = [];
  readonly #dropped = Object.fromEntries(DROP_REASONS.map((reason) => [reason, 0])) as Record<
    DropReason,
    number
  >;
  readonly #projectId: string;
  readonly #byHour = new Map<number, HourRows>();
  // A batch's records nearly all fall in one hour: remembered to skip the outer lookup.
  #lastHour = Number.NaN;
  #lastHourRows: HourRows | undefined;

  constructor(projectId: string) {
    this.#projectId = projectId;
  }

  reject(index: number, code: RecordRejectionCode, message: string): void {
    this.rejected.push({ index, code, message });
  }

  drop(reason: DropReason): void {
    this.#dropped[reason]++;
  }

  view(index: number, hour: number, kind: ViewKind, path: string, pathHasNul: boolean): void {
    // Defence in depth: NUL is refused on input, but a NUL reaching the commit would fail the
    // whole group, other clients' views included.
    if (pathHasNul || kind.agentHasNul) {
      this.reject(
        index,
        'invalid_field',
        'The record leads to a path or agent name holding the NUL character.',
      );
      return;
    }
    this.accepted++;
    const hourRows = hour === this.#lastHour ? this.#lastHourRows! : this.#rowsOfHour(hour);
    let byPath = hourRows.byKind.get(kind.key);
    if (byPath === undefined) {
      byPath = new Map();
      hourRows.byKind.set(kind.key, byPath);
    }
    const row = byPath.get(path);
    if (row !== undefined) {
      row.views++;
      return;
    }
    const created: PageViewCount = {
      projectId: this.#projectId,
      hour: hourRows.hour,
      path,
      trafficClass: kind.trafficClass,
      agent: kind.agent,
      verification: kind.verification,
      views: 1,
    };
    byPath.set(path, created);
    this.rows.push(created);
  }

  /** Drops per reason, leaving out reasons with none. */
  droppedCounts(): Record<string, number> {
    const counted: Record<string, number> = {};
    for (const [reason, count] of Object.entries(this.#dropped)) if (count > 0) counted[reason] = count;
    return counted;
  }

  #rowsOfHour(hour: number): HourRows {
    let hourRows = this.#byHour.get(hour);
    if (hourRows === undefined) {
      hourRows = { hour: new Date(hour), byKind: new Map() };
      this.#byHour.set(hour, hourRows);
    }
    this.#lastHour = hour;
    this.#lastHourRows = hourRows;
    return hourRows;
  }
}
