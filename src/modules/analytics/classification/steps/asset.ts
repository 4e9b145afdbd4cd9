// Drops requests for stylesheets, scripts, images, fonts and other non-page files. Runs after the
// path step because the extension is only reliable once query, fragment and escapes are gone.

import { isAssetPath } from '../asset-paths.ts';
import { drop, type Step } from './step.ts';

export const assetStep: Step = {
  name: 'asset',
  run({ path }) {
    return path !== undefined && isAssetPath(path) ? drop('asset', 'asset') : undefined;
  },
};
