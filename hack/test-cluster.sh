#!/usr/bin/env bash
# `npm run test:cluster`: the cluster path on a real node (test/cluster/). Installs what the node
# needs (Debian packages, the node's binaries from the Go module proxy), builds every image here
# (hack/images.sh --local), then runs the cluster tests, which bring the node up and take it down.
# On a machine that cannot run a node it fails, naming what is missing; it never skips.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$SECONDS
node hack/ensure.mjs
bash hack/node-packages.sh
bash hack/build-tools.sh --node
node --import tsx hack/node/cli.ts check
images_start=$SECONDS
bash hack/images.sh --local
echo "test:cluster: images built in $((SECONDS - images_start)) s"
node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js \
  --config test/cluster/jest.config.js "$@"
echo "test:cluster: done in $((SECONDS - start)) s"
