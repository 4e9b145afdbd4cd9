// Error codes of the ingest API (POST /v1/analytics/{projectId}/events).
// Codes, statuses and descriptions are in the contract (src/contract/error-codes.ts).
import { INGEST_ERROR_CODES } from '../../../contract/index.ts';
import { defineErrors } from '../../../errors/app-error.ts';

export const ingestErrors = defineErrors(INGEST_ERROR_CODES);
