// `docwright agents sync --referrers` and the read of the synced AI-referrer version (`agents list`,
// `import-logs`), as admin commands made like the agent list's (list-sync-commands.ts).
import { selectLatestReferrerList, syncReferrerList } from '../../modules/analytics/index.ts';
import { defineListSyncCommands } from './list-sync-commands.ts';

export const { sync: referrersSync, stored: referrersStored } = defineListSyncCommands({
  noun: 'referrers',
  sync: syncReferrerList,
  selectLatest: selectLatestReferrerList,
});
