// Error codes of the /metrics endpoint.
// Codes, statuses and descriptions are in the contract (src/contract/error-codes.ts).
import { METRICS_ERROR_CODES } from '../contract/index.ts';
import { defineErrors } from '../errors/app-error.ts';

export const metricsErrors = defineErrors(METRICS_ERROR_CODES);
