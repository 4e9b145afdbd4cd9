// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { IMPORT_ERROR_CODES } from '../../../contract/index.ts';
import { defineErrors } from '../../../errors/app-error.ts';

export const importErrors = defineErrors(IMPORT_ERROR_CODES);
