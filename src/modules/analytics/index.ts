// The analytics module's public surface: page-view reports and exports, the agent catalog and
// list sync, the log importer, and the ingest types the metrics observe. Other code imports this
// file, never the files beside it; the HTTP routes are registered by src/http/app.ts.
export { type AgentCatalog, curatedAgentCatalog, liveAgentCatalog } from './agent-catalog.ts';
export { exportAgents } from './agents.ts';
export { AgentListError } from './classification/agent-list.ts';
export { selectLatestAgentList } from './classification/agent-list-queries.ts';
export {
  AI_ROBOTS_TXT_URL,
  readAgentListSource,
  SYNC_MAX_BYTES,
} from './classification/agent-list-source.ts';
export { startAgentListUpdates } from './classification/agent-list-updates.ts';
export { summariseAgents } from './classification/agent-summary.ts';
export { AgentSyncRefused, type SyncResult, syncAgentList } from './classification/agent-sync.ts';
export {
  type AgentListVersion,
  type ClassificationContext,
  createClassificationContext,
  useSyncedAgents,
  useSyncedReferrers,
} from './classification/context.ts';
export { selectLatestReferrerList, syncReferrerList } from './classification/referrer-sync.ts';
export type { AgentCategory } from './classification/types.ts';
export { analyticsErrors } from './errors.ts';
export { reportedRange, resolveHourRange } from './export-range.ts';
export { type ImportChunk, ImportChunkSchema } from './import/chunk.ts';
export { currentDaySaltHex, readLedgerEntries } from './import/database-sink.ts';
export {
  FORMATS,
  type FormatChoice,
  FormatError,
  type LogFormat,
  lineParserFactory,
  parseMapping,
} from './import/formats.ts';
export {
  type ChunkLimits,
  DEFAULT_CHUNK_LIMITS,
  emptySummary,
  importSource,
  type SourceSummary,
  totalDrops,
  visitorIdsOf,
} from './import/importer.ts';
export type { FieldMap } from './import/json-format.ts';
export { applyChunk, type ChunkOutcome, foldImportedVisitors } from './import/ledger.ts';
export { PRESETS } from './import/presets.ts';
export { ImportProgress, type ProgressTarget } from './import/progress.ts';
export type { ImportSink, LedgerEntry } from './import/sink.ts';
export { displayName, openLogSource } from './import/source.ts';
export type { GroupCommitObserver } from './ingest/group-commit.ts';
export type { RecordOutcomes } from './ingest/ingest-batch.ts';
export { exportMcpTools } from './mcp-tools.ts';
export { type ExportFormat, exportFormat } from './negotiate.ts';
export { exportReferrals } from './referrals.ts';
export { exportTimeseries } from './timeseries.ts';
export {
  exportUnrecognizedAgents,
  UnrecognizedAgentCounter,
  type UnrecognizedAgentReport,
} from './unrecognized-agents.ts';
export { exportPageViews } from './views.ts';
export { exportVisitors } from './visitors.ts';
