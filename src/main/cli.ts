// The `docwright` command (bin/docwright runs this file with a suitable Node).
import { buildProgram } from './cli/program.ts';
import { reportError } from './cli/report-error.ts';

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error, (text) => process.stderr.write(text));
}
