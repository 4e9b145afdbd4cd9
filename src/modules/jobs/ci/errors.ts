// The errors this part throws; the codes, statuses and descriptions are in the contract.
import { JOB_CI_ERROR_CODES } from '../../../contract/index.ts';
import { defineErrors } from '../../../errors/app-error.ts';

export const jobCiErrors = defineErrors(JOB_CI_ERROR_CODES);
