// The import rules of .dependency-cruiser.cjs, run on a small made-up src tree: every rule must
// catch the import it forbids, name itself, and let the imports docs/architecture.md allows pass.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');
const cruiser = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const config = path.join(root, '.dependency-cruiser.cjs');

/** Files of the made-up tree: path → the relative imports it makes. */
const TREE: Record<string, string[]> = {
  // Allowed: a module through another's index, a route file using the HTTP layer, app.ts
  // registering a routes.ts plugin, an adapter using the retry policy and the contract, an
  // analytics report using the store through its index, the store using the foundations and the
  // bucket grid, src/errors using the contract.
  'src/modules/a/index.ts': ['./service.ts'],
  'src/modules/a/service.ts': ['../b/index.ts', './queries.ts'],
  'src/modules/a/queries.ts': [],
  'src/modules/a/routes.ts': ['../../http/context.ts', './service.ts'],
  'src/modules/b/index.ts': ['./service.ts'],
  'src/modules/b/service.ts': ['./queries.ts'],
  'src/modules/b/queries.ts': [],
  'src/modules/b/routes.ts': [],
  'src/http/context.ts': [],
  'src/http/app.ts': ['../modules/a/routes.ts', '../modules/b/index.ts'],
  'src/contract/body.ts': [],
  'src/runtime/retry-policy.ts': [],
  'src/code-hosts/github.ts': ['./shared.ts', '../runtime/retry-policy.ts', '../contract/body.ts'],
  'src/code-hosts/shared.ts': [],
  'src/sdk/client.ts': ['../contract/body.ts', './paging.ts'],
  'src/sdk/paging.ts': [],
  'src/modules/analytics/views.ts': ['./store/index.ts'],
  'src/modules/analytics/store/index.ts': ['./rollups.ts'],
  'src/modules/analytics/store/rollups.ts': ['../../../db/database.ts', '../time-buckets.ts'],
  'src/modules/analytics/time-buckets.ts': [],
  'src/db/database.ts': [],
  'src/util/time.ts': [],
  'src/errors/app-error.ts': ['../contract/body.ts'],
  'src/mcp/server.ts': ['../modules/b/index.ts', '../contract/body.ts'],
  'src/mcp/routes.ts': ['../http/context.ts', './server.ts'],
  'src/main/mcp-command.ts': ['../mcp/server.ts'],
  // Forbidden, one import per rule (the file name says which).
  'src/modules/a/reads-other-queries.ts': ['../b/queries.ts'],
  'src/modules/a/reads-other-service.ts': ['../b/service.ts'],
  'src/modules/a/service-uses-http.ts': ['../../http/context.ts'],
  'src/agent/reads-module-file.ts': ['../modules/b/service.ts'],
  'src/agent/reads-module-queries.ts': ['../modules/b/queries.ts'],
  'src/main/registers-routes.ts': ['../modules/b/routes.ts'],
  'src/sdk/imports-server.ts': ['../http/context.ts'],
  'src/contract/imports-server.ts': ['../runtime/retry-policy.ts'],
  'src/models/imports-docwright.ts': ['../code-hosts/shared.ts'],
  'src/modules/analytics/reads-store-file.ts': ['./store/rollups.ts'],
  'src/util/reads-config.ts': ['../config/config.ts'],
  'src/config/config.ts': [],
  'src/errors/reads-module.ts': ['../modules/b/index.ts'],
  'src/errors/reads-util.ts': ['../util/time.ts'],
  'src/util/reads-errors.ts': ['../errors/app-error.ts'],
  'src/modules/analytics/store/reads-report.ts': ['../views.ts'],
  'src/modules/a/uses-mcp.ts': ['../../mcp/server.ts'],
  'src/docs-checks/rules.ts': ['./problems.ts'],
  'src/docs-checks/problems.ts': [],
  'src/docs-checks/imports-docwright.ts': ['../contract/body.ts'],
  'src/util/circle-one.ts': ['./circle-two.ts'],
  'src/util/circle-two.ts': ['./circle-one.ts'],
};

let dir = '';
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('each rule catches the import it forbids, by name, and allowed imports pass', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docwright-deps-'));
  for (const [file, imports] of Object.entries(TREE)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    const lines = imports.map((spec, i) => `import type { T${i} } from '${spec}';`);
    await writeFile(path.join(dir, file), `${lines.join('\n')}\nexport type T = string;\n`);
  }
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [cruiser, '--config', config, '--output-type', 'json', 'src'],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const result = JSON.parse(stdout) as {
    summary: { violations: { from: string; to: string; rule: { name: string } }[] };
  };
  const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  assert.deepEqual(
    found,
    [
      'adapters-self-contained: src/models/imports-docwright.ts → src/code-hosts/shared.ts',
      'analytics-store-through-index: src/modules/analytics/reads-store-file.ts → src/modules/analytics/store/rollups.ts',
      'analytics-store-below-its-users: src/modules/analytics/store/reads-report.ts → src/modules/analytics/views.ts',
      'errors-import-only-contract: src/errors/reads-module.ts → src/modules/b/index.ts',
      'errors-import-only-contract: src/errors/reads-util.ts → src/util/time.ts',
      'util-imports-only-util: src/util/reads-errors.ts → src/errors/app-error.ts',
      'util-imports-only-util: src/util/reads-config.ts → src/config/config.ts',
      'contract-imports-only-contract: src/contract/imports-server.ts → src/runtime/retry-policy.ts',
      'docs-checks-self-contained: src/docs-checks/imports-docwright.ts → src/contract/body.ts',
      'http-only-from-edge: src/modules/a/service-uses-http.ts → src/http/context.ts',
      'mcp-only-from-edge: src/modules/a/uses-mcp.ts → src/mcp/server.ts',
      'modules-through-index: src/modules/a/reads-other-queries.ts → src/modules/b/queries.ts',
      'modules-through-index: src/modules/a/reads-other-service.ts → src/modules/b/service.ts',
      'no-circular: src/util/circle-one.ts → src/util/circle-two.ts',
      'outside-through-index: src/agent/reads-module-file.ts → src/modules/b/service.ts',
      'outside-through-index: src/agent/reads-module-queries.ts → src/modules/b/queries.ts',
      'queries-private: src/modules/a/reads-other-queries.ts → src/modules/b/queries.ts',
      'queries-private-outside: src/agent/reads-module-queries.ts → src/modules/b/queries.ts',
      'routes-only-from-app: src/main/registers-routes.ts → src/modules/b/routes.ts',
      'sdk-imports-only-contract: src/sdk/imports-server.ts → src/http/context.ts',
    ].sort(),
  );
});
