// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { USAGE_ERROR_CODES } from '../../contract/index.ts';
import { defineErrors } from '../../errors/app-error.ts';

export const usageErrors = defineErrors(USAGE_ERROR_CODES);
