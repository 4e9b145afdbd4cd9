// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { COLLECT_ERROR_CODES } from '../../../contract/index.ts';
import { defineErrors } from '../../../errors/app-error.ts';

export const collectErrors = defineErrors(COLLECT_ERROR_CODES);
