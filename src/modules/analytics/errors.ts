import { defineErrors } from '../../errors/app-error.ts';

export const analyticsErrors = defineErrors({
  invalid_date_range: {
    status: 400,
    description:
      'dateFrom is not earlier than dateTo (dateTo is exclusive, so equal bounds select nothing); details name dateTo.',
  },
});
