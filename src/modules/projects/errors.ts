// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { PROJECT_ERROR_CODES } from '../../contract/index.ts';
import { defineErrors } from '../../errors/app-error.ts';

export const projectErrors = defineErrors(PROJECT_ERROR_CODES);
