// A page view is a request that was answered with the page: 2xx, or 304 (the client already had
// it). Errors and redirects are not views. Records without a status are kept.

import { drop, type Step } from './step.ts';

export const statusStep: Step = {
  name: 'status',
  run({ record }) {
    const { status } = record;
    if (status === undefined || status === null) return undefined;
    if (Number.isInteger(status) && ((status >= 200 && status < 300) || status === 304)) return undefined;
    return drop('status', 'status_not_counted');
  },
};
