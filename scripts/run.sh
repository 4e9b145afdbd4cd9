#!/bin/sh
# Runs a script of docwright's with a suitable Node, installing Node and the dependencies first
# when they are missing. Usage: run.sh path/to/script.ts [args...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
node=$(sh "$root/scripts/ensure-node.sh")
sh "$root/scripts/ensure-deps.sh" "$node"
PATH="$(dirname "$node"):$PATH"
export PATH
exec "$node" "$@"
