// The ingest API's shapes as the OpenAPI document shows them: one request record, the batch
// (a JSON array, or NDJSON with one record per line) and the 202 answer. Records are checked one
// by one against IngestRecordSchema (record-validation.ts), not by the route's validator, so one
// bad record is rejected alone instead of failing the batch.
import { type Static, Type } from 'typebox';
import { DEFAULT_MCP_METHOD, DEFAULT_MCP_PATH, MCP_FIELD_LIMITS, VIEW_FORMATS } from './view-formats.ts';

/** Records per request; more is refused as a whole (413 too_many_records). */
export const MAX_RECORDS = 1000;
/** Bytes per request body; more is refused as a whole (413 body_too_large). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** How far ahead of the server's clock a timestamp may be (clock skew between hosts). */
export const MAX_FUTURE_MS = 5 * 60_000;

const text = (description: string, examples: string[]) =>
  Type.Optional(Type.String({ description, examples }));

export const IngestRecordSchema = Type.Object(
  {
    url: text(
      'The requested URL: absolute (https://docs.example.com/guide?x=1) or a path with its query. url or path is required (not blank); path wins when both are given.',
      ['https://docs.example.com/guide/install?ref=nav'],
    ),
    path: text(
      'The requested path, e.g. /guide/install. Query, fragment, .md, index.html and a trailing slash are normalised away.',
      ['/guide/install'],
    ),
    timestamp: text(
      'When the request was made: ISO 8601, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or an offset (none means UTC). Default: when the batch arrives. Refused when more than 5 minutes ahead of the server clock. Counted in the UTC hour that contains it.',
      ['2026-01-31T14:05:09.120Z'],
    ),
    userAgent: text('The User-Agent request header. Without it the view counts as a bot.', [
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot',
    ]),
    ip: text(
      "The client's IP address (IPv4 or IPv6), used to verify agents that publish their address ranges.",
      ['20.171.207.130'],
    ),
    accept: text('The Accept request header; one that prefers text/markdown marks an AI fetch.', [
      'text/markdown, text/html;q=0.9',
    ]),
    referrer: text('The Referer request header.', ['https://www.google.com/']),
    method: text(
      `The HTTP method; only GET and HEAD count (default GET). On an MCP record ("type": "mcp"), the MCP method instead (default ${DEFAULT_MCP_METHOD}; letters, digits and / _ . -, at most ${MCP_FIELD_LIMITS.method} characters).`,
      ['GET', 'tools/call'],
    ),
    status: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 599,
        description: "The response's status code; only 2xx and 304 count. Omitted: counted.",
        examples: [200],
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Further request headers by name (any case): Signature, Signature-Input and Signature-Agent for Web Bot Auth verification.',
        examples: [{ 'signature-agent': '"https://chatgpt.com"' }],
      }),
    ),
    type: Type.Optional(
      Type.Union([Type.Literal('view'), Type.Literal('mcp')], {
        description: `view (the default): a request to the docs site. mcp: a call to the docs site's MCP server, counted as a view with format mcp (under path, default ${DEFAULT_MCP_PATH}) and per tool and client (GET /v1/analytics/{projectId}/mcp-tools); url and path are optional on it.`,
        examples: ['mcp'],
      }),
    ),
    format: Type.Optional(
      Type.Union(
        VIEW_FORMATS.map((f) => Type.Literal(f)),
        {
          description: `How the page was served: ${VIEW_FORMATS.join(', ')}. Omitted: worked out from the path (.md: markdown; /llms.txt, /llms-full.txt: llms) and the Accept header (text/markdown preferred over text/html: markdown), else html; always mcp on an MCP record.`,
          examples: ['markdown'],
        },
      ),
    ),
    tool: Type.Optional(
      Type.String({
        maxLength: MCP_FIELD_LIMITS.tool,
        description: `MCP records: the tool called (params.name of tools/call), at most ${MCP_FIELD_LIMITS.tool} characters, no control characters. Required when the method is tools/call.`,
        examples: ['search_docs'],
      }),
    ),
    clientName: Type.Optional(
      Type.String({
        maxLength: MCP_FIELD_LIMITS.clientName,
        description: `MCP records: the client's name from initialize (clientInfo.name), at most ${MCP_FIELD_LIMITS.clientName} characters.`,
        examples: ['claude-ai'],
      }),
    ),
    clientVersion: Type.Optional(
      Type.String({
        maxLength: MCP_FIELD_LIMITS.clientVersion,
        description: `MCP records: the client's version (clientInfo.version), at most ${MCP_FIELD_LIMITS.clientVersion} characters.`,
        examples: ['0.1.0'],
      }),
    ),
  },
  {
    $id: 'IngestRecord',
    title: 'Request record',
    description:
      'One request to the docs site. Fields not listed here are ignored. No string may contain the NUL character.',
  },
);

export const IngestBatchSchema = Type.Array(Type.Unsafe({ $ref: 'IngestRecord#' }), {
  maxItems: MAX_RECORDS,
  description: `Up to ${MAX_RECORDS} records and 1 MiB. A record that is not valid is rejected alone (see rejected in the answer).`,
});

export const NdjsonLineSchema = Type.Unsafe({
  $ref: 'IngestRecord#',
  description: `application/x-ndjson: one record (a JSON object) per line, up to ${MAX_RECORDS} records and 1 MiB; blank lines are skipped. A line that is not valid JSON is rejected alone.`,
});

export const IngestHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes a retried batch safe: the same key and records within 24 hours are answered with the first answer (header Idempotent-Replayed: true) and counted once; the same key with other records answers 422.',
    }),
  ),
});

export const RejectionSchema = Type.Object({
  index: Type.Integer({
    minimum: 0,
    description: 'Position of the record in the batch, from 0 (for NDJSON: among the non-blank lines).',
  }),
  code: Type.String({
    description:
      'invalid_json, invalid_record, missing_path, invalid_field, invalid_timestamp or timestamp_in_future (docs/ingestion.md).',
  }),
  message: Type.String({ description: 'What is wrong, naming the field.' }),
});
export type Rejection = Static<typeof RejectionSchema>;

export const IngestResultSchema = Type.Object(
  {
    accepted: Type.Integer({
      minimum: 0,
      description:
        'Records committed as page views (human, ai or bot). accepted + the dropped counts + rejected.length = the records sent.',
    }),
    dropped: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
      description:
        'Well-formed records that are not page views, by reason (method_not_counted, status_not_counted, path_invalid, path_too_long, asset); reasons with none are left out.',
    }),
    rejected: Type.Array(RejectionSchema, { description: 'Malformed records, each rejected alone.' }),
  },
  { $id: 'IngestResult', title: 'Ingest result' },
);
export type IngestResult = Static<typeof IngestResultSchema>;
