// Loaded into every test file's process by scripts/test.sh (node --test --import). A test has its
// own timeout (--test-timeout), but a file whose setup failed half-way can leave servers or child
// processes open, and then the file's process never exits: once that kept CI busy for 85 minutes
// until it was stopped. This gives each file a time limit of its own: past it, the file fails with
// what was still holding it open, and the run goes on.
//
// Only test files are limited (the runner marks their processes with NODE_TEST_CONTEXT); the
// runner itself lives as long as the whole suite. The timer is unref'd, so it never keeps a file
// that is done from exiting.
const DEFAULT_LIMIT_MINUTES = 15;

function limitMs(): number {
  const minutes = Number(process.env.DOCWRIGHT_TEST_FILE_LIMIT_MINUTES ?? DEFAULT_LIMIT_MINUTES);
  return (Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_LIMIT_MINUTES) * 60_000;
}

if (process.env.NODE_TEST_CONTEXT?.startsWith('child')) {
  const ms = limitMs();
  setTimeout(() => {
    const file = process.argv[1] ?? 'this test file';
    const holding = process.getActiveResourcesInfo().join(', ');
    process.stderr.write(
      `${file} was still running after ${ms / 60_000} minutes and was stopped ` +
        `(DOCWRIGHT_TEST_FILE_LIMIT_MINUTES). Still open: ${holding || 'nothing'}\n`,
    );
    process.exit(1);
  }, ms).unref();
}
