import { defineErrors } from '../../errors/app-error.ts';

export const analyticsErrors = defineErrors({
  invalid_date_range: {
    status: 400,
    description:
      'dateFrom is not earlier than dateTo (dateTo is exclusive, so equal bounds select nothing); details name dateTo.',
  },
  too_many_buckets: {
    status: 400,
    description:
      'A time series would have more buckets than the limit (2,400): ask for a shorter range or interval=day; details name dateTo, or dateFrom when it was omitted.',
  },
});
