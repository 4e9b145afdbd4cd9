// `docwright import-logs`: every log named, one after the other, into one project, through one
// sink (import-logs-sink.ts). A log that cannot be read, has changed, or is not in the format
// fails alone; the others are still imported, and the run then exits 1.
import type { Readable } from 'node:stream';
import type { Config } from '../../config/config.ts';
import type { ClassificationContext, FormatChoice } from '../../modules/analytics/index.ts';
import {
  type ChunkLimits,
  displayName,
  emptySummary,
  ImportProgress,
  importSource,
  lineParserFactory,
  openLogSource,
  type ProgressTarget,
  type SourceSummary,
  visitorIdsOf,
} from '../../modules/analytics/index.ts';
import { openImportSink } from './import-logs-sink.ts';

export interface ImportLogsRequest {
  projectId: string;
  files: string[];
  format: FormatChoice;
  classification: ClassificationContext;
  /** Where progress goes (stderr); null for none. */
  progress: ProgressTarget | null;
  stdin?: Readable;
  chunkLimits?: ChunkLimits;
  malformedListed?: number;
}

export interface ImportLogsResult {
  projectId: string;
  /** Where the counts went: "through the running server (...)" or "directly in ...". */
  via: string;
  sources: SourceSummary[];
}

export async function importLogs(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  request: ImportLogsRequest,
): Promise<ImportLogsResult> {
  const parserFor = lineParserFactory(request.format);
  const sink = await openImportSink(config);
  const progress = request.progress ? new ImportProgress(request.progress) : null;
  const sources: SourceSummary[] = [];
  try {
    // A mistyped project fails here, before any log is read.
    await sink.readLedger(request.projectId, []);
    // One set of past-day salts for the run: two logs of the same day share their readers.
    const visitorIds = visitorIdsOf(sink);
    for (const file of request.files) {
      let source: Awaited<ReturnType<typeof openLogSource>>;
      try {
        source = await openLogSource(file, request.stdin);
      } catch (error) {
        sources.push(unreadable(file, error));
        continue;
      }
      progress?.start(displayName(file), source.totalBytes);
      const summary = await importSource(source, {
        projectId: request.projectId,
        parse: parserFor(),
        classification: request.classification,
        sink,
        visitorIds,
        ...(request.chunkLimits ? { chunkLimits: request.chunkLimits } : {}),
        ...(request.malformedListed !== undefined ? { malformedListed: request.malformedListed } : {}),
        ...(progress ? { onProgress: (p) => progress.update(p.lines, p.bytesRead) } : {}),
      }).finally(() => progress?.finish());
      sources.push(summary);
    }
    return { projectId: request.projectId, via: sink.where, sources };
  } finally {
    await sink.close();
  }
}

function unreadable(file: string, error: unknown): SourceSummary {
  const e = error as NodeJS.ErrnoException;
  const why =
    e.code === 'ENOENT'
      ? 'no such file'
      : e.code === 'EACCES'
        ? 'permission denied'
        : e.code === 'EISDIR'
          ? 'is a directory'
          : e.message;
  return {
    ...emptySummary(file, 'failed'),
    error: { code: e.code ?? 'read_failed', message: `cannot read ${file}: ${why}` },
  };
}
