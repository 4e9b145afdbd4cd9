// The errors this module throws; the codes, statuses and descriptions are in the contract.
import { JOB_CHECKS_ERROR_CODES } from '../../../contract/index.ts';
import { defineErrors } from '../../../errors/app-error.ts';

export const jobChecksErrors = defineErrors(JOB_CHECKS_ERROR_CODES);
