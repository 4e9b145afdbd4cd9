// Error codes of the /metrics endpoint.
import { defineErrors } from '../errors/app-error.ts';

export const metricsErrors = defineErrors({
  metrics_token_required: {
    status: 401,
    description:
      'DOCWRIGHT_METRICS_TOKEN is set and the /metrics request did not send it as "Authorization: Bearer <token>".',
  },
});
