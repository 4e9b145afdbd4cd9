// What the ingestion paths report to the metrics: the outcome of every record (from the ingest
// endpoint's answer and the browser script's), and every group commit of each writer.
import type { GroupCommitObserver, RecordOutcomes } from '../modules/analytics/index.ts';
import type { DocwrightMetrics } from './registry.ts';

/** api: POST /v1/analytics/{projectId}/events; script: the browser script's /collect. */
export type IngestSource = 'api' | 'script';

export function recordOutcomeObserver(
  metrics: DocwrightMetrics,
  source: IngestSource,
): (outcomes: RecordOutcomes) => void {
  return ({ accepted, dropped, rejected }) => {
    if (accepted > 0) metrics.ingestRecords.inc({ source, outcome: 'accepted' }, accepted);
    if (rejected > 0) metrics.ingestRecords.inc({ source, outcome: 'rejected' }, rejected);
    for (const [reason, count] of Object.entries(dropped)) {
      metrics.ingestRecords.inc({ source, outcome: 'dropped' }, count);
      metrics.ingestDropped.inc({ source, reason }, count);
    }
  };
}

export function groupCommitObserver(metrics: DocwrightMetrics, writer: IngestSource): GroupCommitObserver {
  return {
    flushed({ ok, seconds, requests, views }) {
      metrics.ingestFlushSeconds.observe({ writer, result: ok ? 'committed' : 'failed' }, seconds);
      if (!ok) return;
      metrics.ingestFlushViews.observe({ writer }, views);
      metrics.ingestFlushRequests.observe({ writer }, requests);
    },
    refused(views) {
      metrics.ingestRefusedViews.inc({ writer }, views);
    },
  };
}
