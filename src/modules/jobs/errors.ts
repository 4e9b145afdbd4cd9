import { defineErrors } from '../../errors/app-error.ts';

export const jobErrors = defineErrors({});
