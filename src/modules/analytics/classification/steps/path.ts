// URL or path → the normalised page path, with the Markdown flag (see normalise-path.ts).

import { normalisePath } from '../normalise-path.ts';
import { drop, type Step } from './step.ts';

export const pathStep: Step = {
  name: 'path',
  run({ record }) {
    const target =
      typeof record.path === 'string' ? record.path : typeof record.url === 'string' ? record.url : undefined;
    const result = normalisePath(target);
    if (!result.ok) return drop('path', result.reason);
    return { path: result.path, markdown: result.markdown };
  },
};
