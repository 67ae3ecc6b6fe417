#!/usr/bin/env bash
# Builds the real components that tests and the single-machine platform run
# (kube-apiserver, kube-controller-manager, kubectl, etcd, FerretDB; helm and kwok
# for the chart tests) from the Go module proxy into .tools/bin, at the versions
# pinned by the wrapper modules in hack/tools/*. A group is skipped when its
# binaries exist and were built from the same wrapper sources; module and build
# caches stay in Go's own (per-user) cache directories, outside the repository, so
# a rebuild after a version bump is quick. From a clean cache on 2 busy cores, helm
# and kwok take about 2 minutes each on top of the rest.
#
# With --node it also builds what hack/node.sh runs a real node with: containerd and its runc
# shim, runc (with seccomp: cgo and libseccomp-dev), the CNI reference plugins, kubelet,
# kube-proxy, a CoreDNS of the few plugins the node needs and kube-network-policies (the
# NetworkPolicy enforcer).
#
# Usage: hack/build-tools.sh [--check] [--node]   (--check: exit 1 if anything needs building)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/.tools/bin"
stamps="$root/.tools/stamps"
check_only=false
with_node=false
for arg in "$@"; do
  case "$arg" in
    --check) check_only=true ;;
    --node) with_node=true ;;
    *) echo "usage: hack/build-tools.sh [--check] [--node]" >&2; exit 2 ;;
  esac
done

k8s_version="v1.35.4"
helm_version="v3.22.0"
kwok_version="v0.8.0"
k8s_ldflags="-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=35"

# group name | wrapper dir | binaries | packages | ldflags | cgo (1 = on) | build tags
groups=(
  "etcd|etcd|etcd|.|"
  "ferretdb|ferretdb|ferretdb|.|"
  "kubernetes|kube|kube-apiserver kube-controller-manager kubectl|k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl|-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=35 -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=35"
  # Only the chart tests' kwok cluster schedules pods; the other tests leave them Pending.
  "kube-scheduler|kube|kube-scheduler|k8s.io/kubernetes/cmd/kube-scheduler|-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=35"
  # helm's default Kubernetes version (templates without a cluster, lint's deprecation checks)
  # is that of the cluster the tests run, not its built-in 1.20.
  "helm|helm|helm|helm.sh/helm/v3/cmd/helm|-X helm.sh/helm/v3/internal/version.version=$helm_version -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=35 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=35"
  "kwok|kwok|kwok|sigs.k8s.io/kwok/cmd/kwok|-X sigs.k8s.io/kwok/pkg/consts.Version=${kwok_version#v}"
)
if $with_node; then
  groups+=(
    "kubelet|kube|kubelet kube-proxy|k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy|$k8s_ldflags"
    "containerd|containerd|containerd containerd-shim-runc-v2 ctr|github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 github.com/containerd/containerd/v2/cmd/ctr|-X github.com/containerd/containerd/v2/version.Version=v2.4.2||no_btrfs no_devmapper no_zfs"
    # runc applies the seccomp profile of pods that ask for RuntimeDefault (the restricted profile).
    "runc|runc|runc|github.com/opencontainers/runc|-X main.version=1.5.2|1|seccomp"
    "cni|cni|bridge host-local loopback portmap|github.com/containernetworking/plugins/plugins/main/bridge github.com/containernetworking/plugins/plugins/ipam/host-local github.com/containernetworking/plugins/plugins/main/loopback github.com/containernetworking/plugins/plugins/meta/portmap|"
    "coredns|coredns|coredns|.|"
    # NetworkPolicy enforcement (nftables + nfqueue); patch.sh says why it is patched.
    "kube-network-policies|kube-network-policies|kube-network-policies|.|"
  )
fi

# The stamp is a hash of everything that decides what gets built.
stamp_of() {
  local f
  (
    cd "$root/hack/tools/$1"
    for f in go.mod go.sum *.go patch.sh; do
      if [[ -f "$f" ]]; then cat "$f"; fi
    done
    echo "$2"
    # cgo and build tags (only the node's groups have them: the other stamps stay as they were)
    if [[ -n "${3:-}${4:-}" ]]; then echo "cgo=${3:-} tags=${4:-}"; fi
  ) | sha256sum | cut -c1-16
}

needs_build() {
  local name=$1 dir=$2 bins=$3 ldflags=$4 cgo=$5 tags=$6 b
  [[ -f "$stamps/$name" && "$(cat "$stamps/$name")" == "$(stamp_of "$dir" "$ldflags" "$cgo" "$tags")" ]] || return 0
  for b in $bins; do [[ -x "$bin/$b" ]] || return 0; done
  return 1
}

pending=()
for g in "${groups[@]}"; do
  IFS='|' read -r name dir bins pkgs ldflags cgo tags <<<"$g"
  if needs_build "$name" "$dir" "$bins" "$ldflags" "$cgo" "$tags"; then pending+=("$g"); fi
done

if [[ ${#pending[@]} -eq 0 ]]; then
  echo "tools: all up to date in .tools/bin"
  exit 0
fi
if $check_only; then
  echo "tools: missing or stale: $(for g in "${pending[@]}"; do printf '%s ' "${g%%|*}"; done)"
  exit 1
fi

if ! command -v go >/dev/null 2>&1; then
  echo "tools: no Go toolchain on PATH. Install Go 1.25 or newer (https://go.dev/dl or your" >&2
  echo "       distribution's golang package) so kube-apiserver, etcd and FerretDB can be built." >&2
  exit 1
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [[ "$go_minor" -lt 25 ]]; then
  echo "tools: Go $(go env GOVERSION) is too old; Kubernetes $k8s_version needs Go 1.25 or newer." >&2
  exit 1
fi

mkdir -p "$bin" "$stamps"
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0

total_start=$SECONDS
for g in "${pending[@]}"; do
  IFS='|' read -r name dir bins pkgs ldflags cgo tags <<<"$g"
  start=$SECONDS
  echo "tools: building $name ($bins) ..."
  # A wrapper with a patch.sh is built from a copy that the script patched (its comment
  # says what and why); the others where they are.
  build_dir="$root/hack/tools/$dir"
  if [[ -f "$build_dir/patch.sh" ]]; then
    patched=$(mktemp -d)
    trap 'rm -rf "$patched"' EXIT
    cp "$build_dir"/* "$patched/"
    (cd "$patched" && go mod download && bash patch.sh) || exit 1
    build_dir=$patched
  fi
  # -v names each package as it compiles; count them as a progress line.
  (cd "$build_dir" &&
    CGO_ENABLED="${cgo:-0}" go build -v -trimpath ${tags:+-tags "$tags"} -ldflags "-s -w $ldflags" \
      -o "$bin/" $pkgs 2>&1) |
    awk -v name="$name" -v start="$start" '
      /^(go: |#|.*\.go:[0-9]+)/ { print; next }
      { n++; if (n % 250 == 0) { printf "tools:   %s: %d packages compiled\n", name, n; fflush() } }
    '
  status=${PIPESTATUS[0]}
  if [[ $status -ne 0 ]]; then
    echo "tools: building $name failed (exit $status); see the messages above." >&2
    exit "$status"
  fi
  for b in $bins; do
    [[ -x "$bin/$b" ]] || { echo "tools: $name built but $bin/$b is missing" >&2; exit 1; }
  done
  stamp_of "$dir" "$ldflags" "$cgo" "$tags" >"$stamps/$name"
  echo "tools: built $name in $((SECONDS - start)) s"
done
echo "tools: done in $((SECONDS - total_start)) s"
