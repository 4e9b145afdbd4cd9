// POST /v1/analytics/{projectId}/events: batches of request records from a docs server, an edge
// function or a log shipper, as a JSON array or as NDJSON. Answered 202 only after the accepted
// views are committed (group-commit.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  IngestBatchSchema,
  IngestHeadersSchema,
  IngestRecordSchema,
  type IngestResult,
  IngestResultSchema,
  MAX_BODY_BYTES,
  MAX_RECORDS,
  NdjsonLineSchema,
  ProjectParamsSchema,
} from '../../../contract/index.ts';
import { httpErrors } from '../../../errors/request-errors.ts';
import type { App, AppContext } from '../../../http/context.ts';
import { checkIdempotencyKey } from '../../../http/idempotency.ts';
import { errorResponses } from '../../../http/openapi.ts';
import { jsonValueError } from '../../../http/request-text.ts';
import { validatorCompiler } from '../../../http/validation.ts';
import { exceedsJsonDepth } from '../../../util/json-depth.ts';
import { type ClassificationContext, createClassificationContext } from '../classification/context.ts';
import { VisitorSalts } from '../store/index.ts';
import type { UnrecognizedAgentCounter } from '../unrecognized-agents.ts';
import { parseJsonArrayInPieces } from './body-pieces.ts';
import { type GroupCommitOptions, GroupCommitWriter } from './group-commit.ts';
import { checkRecordCount, type RecordOutcomes } from './ingest-batch.ts';
import { parseNdjson } from './ndjson.ts';
import { type IngestServiceDependencies, ingestEvents } from './service.ts';

export interface IngestRouteOptions {
  /** A writer made by the caller (tests read its stats); closed with the app all the same. */
  writer?: GroupCommitWriter;
  /** Settings of the writer made here when none is given. */
  writerOptions?: Partial<GroupCommitOptions>;
  classification?: ClassificationContext;
  now?: () => number;
  /** Told the outcome counts of every answered batch (the metrics). */
  onRecords?: (outcomes: RecordOutcomes) => void;
  /** Counts for the unknown-agents report. */
  unrecognized?: UnrecognizedAgentCounter;
}

/** What the NDJSON parser hands the handler: the parsed lines and how many there were. */
class NdjsonBody {
  readonly items: unknown[];
  readonly lines: number;
  constructor(items: unknown[], lines: number) {
    this.items = items;
    this.lines = lines;
  }
}

const NDJSON = 'application/x-ndjson';

export function registerIngestRoutes(app: App, context: AppContext, options: IngestRouteOptions = {}): void {
  app.addSchema(IngestRecordSchema);
  app.addSchema(IngestResultSchema);
  const writer = options.writer ?? new GroupCommitWriter(context.db, options.writerOptions, app.log);
  // Fastify runs onClose after the HTTP server stopped and its requests were answered: the
  // last views are committed, and the writer is closed before whoever owns the database closes it.
  app.addHook('onClose', async () => writer.close());
  const deps: IngestServiceDependencies = {
    db: context.db,
    writer,
    classification: options.classification ?? createClassificationContext(),
    now: options.now ?? Date.now,
    visitorSalts: new VisitorSalts(context.db),
    ...(options.unrecognized ? { unrecognized: options.unrecognized } : {}),
    ...(options.onRecords ? { onRecords: options.onRecords } : {}),
  };

  // Encapsulated so the NDJSON parser and the route's own 415 exist on this route only.
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser(
      NDJSON,
      { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
      (_request, body, done) => {
        const parsed = parseNdjson(body as Buffer, MAX_RECORDS);
        done(null, new NdjsonBody(parsed.items, parsed.lines));
      },
    );
    // JSON arrays are held to the depth limit as every JSON body is, but a NUL is the fault of
    // the one record holding it, rejected alone (record-validation.ts), as in NDJSON.
    //
    // Parsed by JSON.parse alone, as NDJSON lines are: Fastify's parser (secure-json-parse) also
    // scans the whole text with two regular expressions for "__proto__" and "constructor" keys,
    // a fifth of a batch's parse time, to refuse the body in case later code merged it into
    // another object. Ingest reads records by field name and never merges them (NDJSON never had
    // the scan), so a record with such a key is checked like any other, in either format.
    //
    // Read as bytes so that a large array is decoded and parsed in pieces (body-pieces.ts); any
    // other body is decoded whole, as Fastify would.
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      const records = parseJsonArrayInPieces(body as Buffer);
      if (records !== undefined)
        return done(exceedsJsonDepth(records) ? jsonValueError('too_deep') : null, records);
      let text = (body as Buffer).toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      // A byte order mark is skipped, as Fastify's parser does.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // Not JSON: Fastify's parser fails it too, with the error every route gives.
        return parseJson(request, text, (error, parsed) => done(error, parsed));
      }
      done(exceedsJsonDepth(value) ? jsonValueError('too_deep') : null, value);
    });
    scope.addContentTypeParser('*', (request, _payload, done) => {
      const type = request.headers['content-type'];
      done(
        httpErrors.unsupported_media_type(
          `${type === undefined ? 'A Content-Type header is required' : `Content-Type "${type}" is not accepted here`}; send application/json (an array of records) or ${NDJSON} (one record per line).`,
        ),
      );
    });

    scope.post(
      '/v1/analytics/:projectId/events',
      {
        config: { access: 'ingest' },
        bodyLimit: MAX_BODY_BYTES,
        // The body schema documents the batch; records are checked one by one in the handler,
        // so a bad record is rejected alone instead of failing the whole batch with a 400.
        validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)),
        schema: {
          tags: ['analytics'],
          security: [{ bearerAuth: [] }],
          summary: 'Ingest request records (page views)',
          description: `Up to ${MAX_RECORDS} request records and 1 MiB per call, as a JSON array or as NDJSON (${NDJSON}). Each record is checked alone: a malformed one is listed in rejected with its index, the others are classified (human, ai, bot) or dropped with a reason. The 202 answer is sent only after the accepted views are committed, so an acknowledged view is never lost; a 503 (with Retry-After) means nothing of the batch was counted, and the batch may be sent again. An ingest or admin key is needed.`,
          params: ProjectParamsSchema,
          headers: IngestHeadersSchema,
          body: {
            content: {
              'application/json': { schema: IngestBatchSchema },
              [NDJSON]: { schema: NdjsonLineSchema },
            },
          },
          response: {
            202: Type.Unsafe<IngestResult>({
              $ref: 'IngestResult#',
              description: 'The accepted views are committed; dropped and rejected records are counted here.',
            }),
            ...errorResponses(503),
          },
        },
      },
      async (request, reply) => {
        const idempotencyKey = checkIdempotencyKey(request.headers['idempotency-key']);
        const batch = { projectId: request.params.projectId, items: recordsOf(request.body), idempotencyKey };
        // The parsed records are handed over to ingestEvents, which lets go of them once they are
        // counted: kept by the request until the commit answers, every scavenge meanwhile would
        // copy them (about 15 requests' bodies wait for each group commit).
        request.body = undefined;
        const answer = await ingestEvents(deps, batch);
        if (answer.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(202).send(answer.result);
      },
    );
  });
}

/** The batch's records from the parsed body: NDJSON lines or a JSON array, nothing else. */
function recordsOf(body: unknown): readonly unknown[] {
  if (body instanceof NdjsonBody) {
    checkRecordCount(body.lines);
    return body.items;
  }
  if (Array.isArray(body)) return body;
  if (body === undefined) throw httpErrors.invalid_json('The body is empty; send a JSON array of records.');
  throw httpErrors.invalid_body(
    'The body must be a JSON array of records (or NDJSON with Content-Type application/x-ndjson).',
  );
}
