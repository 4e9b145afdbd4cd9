// Only GET and HEAD are page views; a record without a method is taken as GET (edge functions
// and some log formats leave it out).

import { drop, type Step } from './step.ts';

export const methodStep: Step = {
  name: 'method',
  run({ record }) {
    const method = typeof record.method === 'string' ? record.method.trim().toUpperCase() : 'GET';
    if (method === 'GET' || method === 'HEAD') return undefined;
    return drop('method', 'method_not_counted');
  },
};
