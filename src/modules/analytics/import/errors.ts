import { defineErrors } from '../../../errors/app-error.ts';

export const importErrors = defineErrors({
  import_conflict: {
    status: 409,
    description:
      'A log-import chunk does not continue where the ledger stands for that log (another import of the same log ran meanwhile); run the import again to continue from the ledger.',
  },
  import_source_changed: {
    status: 409,
    description:
      'A log starts like one imported before but its already-counted lines differ (edited or replaced in place); nothing of it was imported.',
  },
  import_unrecognised: {
    status: 400,
    description:
      'Not one line of a new log could be read as a request in the chosen format (check --format, --preset and --map); nothing of it was imported.',
  },
});
