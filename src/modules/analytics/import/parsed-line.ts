import type { RequestRecord } from '../classification/types.ts';

/** A log line read as a request (with its time in ms), or why it could not be read. */
export type ParsedLine = { record: RequestRecord; at: number } | { malformed: string };
