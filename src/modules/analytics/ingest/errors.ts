// Error codes of the ingest API (POST /v1/analytics/{projectId}/events). Problems with one record
// are not errors of the request: they are reported in the 202 answer's `rejected` list (see
// record-rejections.ts), so the rest of the batch is kept.
import { defineErrors } from '../../../errors/app-error.ts';

export const ingestErrors = defineErrors({
  too_many_records: {
    status: 413,
    description: 'An ingest batch holds more than 1,000 records; nothing of it was counted. Split it.',
  },
  ingest_overloaded: {
    status: 503,
    description:
      'Too many page views are waiting to be committed; nothing of this batch was counted. Retry after the Retry-After header (seconds).',
  },
  ingest_unavailable: {
    status: 503,
    description:
      'The batch could not be committed (database failure, or the server is shutting down); nothing of it was counted. Retry after the Retry-After header (seconds).',
  },
});
