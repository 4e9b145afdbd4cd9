// The analytics store's interface (src/modules/analytics/store/index.ts) is small on purpose: the
// producers add views, the reports read a page or a series (docs/architecture.md). Everything in
// src reaches the store through that file alone (rule analytics-store-through-index), so this list
// is all of the store the rest of docwright can use; a name added here is a decision, not a leak.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as store from '../../src/modules/analytics/store/index.ts';

test("the analytics store exports only its interface's functions and classes", () => {
  // The records the producers build (ViewSums; VisitorSalts and CommittedVisitors for visitor
  // ids, and the hasher and day helpers log import uses for past days), add views (addViews, stageViews and the merger ingest runs,
  // foldStagedVisitors for the ids log import stages), read a page, read a series.
  assert.deepEqual(Object.keys(store).sort(), [
    'CommittedVisitors',
    'StagedViewMerger',
    'ViewSums',
    'VisitorHasher',
    'VisitorSalts',
    'addViews',
    'currentDaySalt',
    'foldStagedVisitors',
    'readExtent',
    'readPage',
    'readSeries',
    'stageViews',
    'utcDayOf',
  ]);
});
