#!/usr/bin/env bash
# The Debian packages the real node (hack/node.sh) and the local image builds
# (hack/images.sh --local) need: iptables and conntrack (kube-proxy, the CNI plugins), nftables
# (the node's stop removes what kube-network-policies left),
# libseccomp-dev (runc is built with seccomp), buildah and mmdebstrap (images without Docker),
# and a static libc to compile the pause image. Installed with apt-get when missing (as root on
# Debian); otherwise it names what to install and fails.
set -euo pipefail
declare -A wanted=(
  [iptables]=iptables
  [conntrack]=conntrack
  [nft]=nftables
  [buildah]=buildah
  [mmdebstrap]=mmdebstrap
  [/usr/include/seccomp.h]=libseccomp-dev
  [/usr/lib/x86_64-linux-gnu/libc.a]=libc6-dev
)
missing=()
for what in "${!wanted[@]}"; do
  if [[ "$what" == /* ]]; then [[ -e "$what" ]] || missing+=("${wanted[$what]}")
  else command -v "$what" >/dev/null || missing+=("${wanted[$what]}"); fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
  echo "node-packages: missing ${missing[*]}: install them (Debian: apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "node-packages: installing ${missing[*]} with apt-get ..."
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
  { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
