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
  agent_list_refused: {
    status: 422,
    description:
      'An AI-agent list sync (docwright agents sync) was refused and changed nothing: the list does not parse, holds no agents, or would drop more than the allowed share of the synced entries.',
  },
});
