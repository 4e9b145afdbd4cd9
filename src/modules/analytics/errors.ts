import { defineErrors } from '../../errors/app-error.ts';

export const analyticsErrors = defineErrors({});
