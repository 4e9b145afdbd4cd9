#!/bin/sh
# Installs the npm dependencies with the Node chosen by ensure-node.sh when node_modules is
# missing or older than package-lock.json. Usage: ensure-deps.sh /path/to/node
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
node_bin_dir=$(dirname "$1")
stamp="$root/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ ! "$root/package-lock.json" -nt "$stamp" ]; then exit 0; fi
echo "docwright: installing npm dependencies" >&2
# npm is a Node script: with the chosen Node first on PATH it runs (and runs install scripts) on it.
# `npm install`, not `npm ci`: npm 11 leaves other platforms' optional packages (biome's binaries)
# out of the lock file and then `npm ci` refuses it as out of sync; install follows the lock as is.
cd "$root" && PATH="$node_bin_dir:$PATH" npm install --no-audit --no-fund --loglevel=error >&2
