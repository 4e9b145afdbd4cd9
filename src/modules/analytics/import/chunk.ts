// One chunk of a log import: the rollup rows that a run of consecutive lines produced, and where
// that run starts and ends in the log. It is plain JSON, so the CLI can commit it itself or send
// it to the running server that holds the embedded database.
import { createHash } from 'node:crypto';
import { type Static, Type } from 'typebox';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** A position in a log: the first `lines` lines, and the SHA-256 of their bytes. */
export const LogPositionSchema = Type.Object({
  lines: Type.Integer({ minimum: 0 }),
  sha256: Sha256,
});
export type LogPosition = Static<typeof LogPositionSchema>;

export const ChunkRowSchema = Type.Object({
  /** The UTC hour, ISO 8601 (any time inside the hour is accepted). */
  hour: Type.String({ minLength: 1, maxLength: 40 }),
  path: Type.String({ minLength: 1, maxLength: 4096 }),
  trafficClass: Type.Union([Type.Literal('human'), Type.Literal('ai'), Type.Literal('bot')]),
  agent: Type.String({ maxLength: 200 }),
  verification: Type.String({ maxLength: 40 }),
  /** How the page was served, when not html (view-format.ts). */
  format: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('llms'), Type.Literal('mcp')])),
  views: Type.Integer({ minimum: 1 }),
});
export type ChunkRow = Static<typeof ChunkRowSchema>;

/** Views of one automated-looking user agent the agent list does not know (unrecognized-agents.ts). */
export const ChunkUnrecognizedSchema = Type.Object({
  product: Type.String({ minLength: 1, maxLength: 64 }),
  trafficClass: Type.Union([Type.Literal('human'), Type.Literal('bot')]),
  reason: Type.Union([
    Type.Literal('isbot'),
    Type.Literal('automated_words'),
    Type.Literal('no_browser_engine'),
  ]),
  example: Type.String({ maxLength: 256 }),
  views: Type.Integer({ minimum: 1 }),
  /** The times of the first and last such request in the chunk, ISO 8601. */
  firstSeen: Type.String({ minLength: 1, maxLength: 40 }),
  lastSeen: Type.String({ minLength: 1, maxLength: 40 }),
});
export type ChunkUnrecognized = Static<typeof ChunkUnrecognizedSchema>;

/** The distinct visitor ids of one (hour, class, page): keyed hashes, never addresses (visitor-days.ts). */
export const ChunkVisitorsSchema = Type.Object({
  hour: Type.String({ minLength: 1, maxLength: 40 }),
  trafficClass: Type.Union([Type.Literal('human'), Type.Literal('ai')]),
  path: Type.String({ minLength: 1, maxLength: 4096 }),
  ids: Type.Array(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), { minItems: 1 }),
});
export type ChunkVisitors = Static<typeof ChunkVisitorsSchema>;

/** Human views of one (hour, page) an AI assistant referred (its name only, never the referrer). */
export const ChunkReferralSchema = Type.Object({
  hour: Type.String({ minLength: 1, maxLength: 40 }),
  assistant: Type.String({ minLength: 1, maxLength: 100 }),
  path: Type.String({ minLength: 1, maxLength: 4096 }),
  views: Type.Integer({ minimum: 1 }),
});
export type ChunkReferral = Static<typeof ChunkReferralSchema>;

/** Most rows one chunk may carry; the importer flushes well before (see importer.ts). */
export const MAX_CHUNK_ROWS = 20_000;

export const ImportChunkSchema = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 100 }),
  /** SHA-256 of the log's first line: which log this is. */
  fingerprint: Sha256,
  /** The file name, for people reading the ledger. */
  sourceName: Type.String({ maxLength: 1024 }),
  /** Where the ledger must stand for this chunk to apply. */
  from: LogPositionSchema,
  /** Where the ledger stands once it is applied. */
  to: LogPositionSchema,
  rows: Type.Array(ChunkRowSchema, { maxItems: MAX_CHUNK_ROWS }),
  /** For the unknown-agents report, counted exactly once with the chunk's views. */
  unrecognized: Type.Optional(Type.Array(ChunkUnrecognizedSchema, { maxItems: MAX_CHUNK_ROWS })),
  /** Visitor ids for the sketches (absent in chunks of CLIs before they were kept). */
  visitors: Type.Optional(Type.Array(ChunkVisitorsSchema, { maxItems: MAX_CHUNK_ROWS })),
  /** Referred human views for /referrals. */
  referrals: Type.Optional(Type.Array(ChunkReferralSchema, { maxItems: MAX_CHUNK_ROWS })),
  /** What the chunk's lines were, added to the ledger's totals. */
  stats: Type.Object({
    accepted: Type.Integer({ minimum: 0 }),
    dropped: Type.Integer({ minimum: 0 }),
    malformed: Type.Integer({ minimum: 0 }),
  }),
});
export type ImportChunk = Static<typeof ImportChunkSchema>;

/** The hash of no lines at all: the position every new log starts from. */
export const EMPTY_SHA256 = createHash('sha256').digest('hex');
