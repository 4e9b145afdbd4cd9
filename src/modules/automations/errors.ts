// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { AUTOMATION_ERROR_CODES } from '../../contract/index.ts';
import { defineErrors } from '../../errors/app-error.ts';

export const automationErrors = defineErrors(AUTOMATION_ERROR_CODES);
