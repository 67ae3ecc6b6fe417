#!/usr/bin/env bash
# A real single-node Kubernetes on this machine (hack/node/index.ts says what runs): builds what
# it needs first (hack/build-tools.sh --node), then `up` (foreground; Ctrl-C stops it and cleans
# the host), `down` (stops one started elsewhere, cleans up after a crash) or `check` (can this
# machine run it?). Needs root. Images: hack/images.sh --local puts archives in .dev/images,
# which `up` imports into the node's containerd.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash hack/node-packages.sh
bash hack/build-tools.sh --node
exec node --import tsx hack/node/cli.ts "${1:-up}"
