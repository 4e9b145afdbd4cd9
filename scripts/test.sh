#!/bin/sh
# The whole test suite: type check, lint, import rules, then every test file on PGlite and on PostgreSQL.
# This is the README's test command (npm test) and what .ci/run runs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
node=$(sh "$root/scripts/ensure-node.sh")
sh "$root/scripts/ensure-deps.sh" "$node"
cd "$root"
PATH="$(dirname "$node"):$PATH"
export PATH
echo "== type check (tsc --noEmit)"
"$node" node_modules/typescript/bin/tsc --noEmit -p .
echo "== lint and format check (biome)"
"$node" node_modules/@biomejs/biome/bin/biome check .
echo "== dependency rules (dependency-cruiser, .dependency-cruiser.cjs)"
"$node" node_modules/dependency-cruiser/bin/dependency-cruiser.mjs --config .dependency-cruiser.cjs \
  --output-type err-long src
echo "== tests"
# Each file gets a fresh database per backend; a hung test fails after the timeout, and a file that
# does not exit fails after its own limit (test/helpers/file-time-limit.ts), instead of hanging CI.
# Arguments narrow the run: npm test -- test/analytics/*.test.ts
if [ "$#" -gt 0 ]; then set -- "$@"; else set -- "test/**/*.test.ts"; fi
exec "$node" --test --test-concurrency=2 --test-timeout=300000 \
  --import ./test/helpers/file-time-limit.ts "$@"
