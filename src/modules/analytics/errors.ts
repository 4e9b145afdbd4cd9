// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { ANALYTICS_ERROR_CODES } from '../../contract/index.ts';
import { defineErrors } from '../../errors/app-error.ts';

export const analyticsErrors = defineErrors(ANALYTICS_ERROR_CODES);
