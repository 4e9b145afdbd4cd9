// A page view is a request that was answered with the page: 2xx, or 304 (the client already had
// it). Errors and redirects are not views. Records without a status are kept.

import { drop, type Step } from './step.ts';

/** Whether a request answered with this status can be a page view (none given counts). */
export function isCountedStatus(status: unknown): boolean {
  if (status === undefined || status === null) return true;
  return (
    Number.isInteger(status) && (((status as number) >= 200 && (status as number) < 300) || status === 304)
  );
}

export const statusStep: Step = {
  name: 'status',
  run({ record }) {
    return isCountedStatus(record.status) ? undefined : drop('status', 'status_not_counted');
  },
};
