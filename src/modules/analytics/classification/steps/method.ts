// Only GET and HEAD are page views; a record without a method is taken as GET (edge functions
// and some log formats leave it out).

import { drop, type Step } from './step.ts';

/** Whether a request with this method can be a page view (any case, spaces around ignored). */
export function isCountedMethod(method: unknown): boolean {
  // The exact spellings first: nearly every record sends one, and they need no copy.
  if (method === 'GET' || method === 'HEAD' || typeof method !== 'string') return true;
  const normalised = method.trim().toUpperCase();
  return normalised === 'GET' || normalised === 'HEAD';
}

export const methodStep: Step = {
  name: 'method',
  run({ record }) {
    return isCountedMethod(record.method) ? undefined : drop('method', 'method_not_counted');
  },
};
