// Error codes about the request itself: authentication, request shape, limits, server faults.
// They live outside src/http because services that validate what a request asks for (a job's
// prompt, an export's range, an idempotency key's reuse) raise them too, and services never
// import the HTTP layer. Codes, statuses and descriptions are in the contract
// (src/contract/error-codes.ts).
import { HTTP_ERROR_CODES } from '../contract/index.ts';
import { defineErrors } from './app-error.ts';

export const httpErrors = defineErrors(HTTP_ERROR_CODES);
