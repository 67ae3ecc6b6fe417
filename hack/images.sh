#!/usr/bin/env bash
# Builds the platform's images from images/*/Dockerfile (repository root as the context) and,
# with --push, pushes them. Every image is tagged with the chart's appVersion
# (charts/svc/Chart.yaml), the one place the version is written, so what the chart installs by
# default is what this builds. Uses `docker buildx`, else `buildah`; these development machines
# have neither (no container engine), so the images are built on a machine that has one.
#
# Usage: hack/images.sh [--push] [image ...]   (default: every image)
#   SVC_IMAGE_REPOSITORY  where the images go (default ghcr.io/svc-platform, the chart's default)
#   SVC_IMAGE_PLATFORMS   with --push and buildx, e.g. linux/amd64,linux/arm64
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repository="${SVC_IMAGE_REPOSITORY:-ghcr.io/svc-platform}"
version="$(sed -n -E "s/^appVersion: *[\"']?([^\"']+)[\"']? *$/\1/p" "$root/charts/svc/Chart.yaml")"
[[ -n "$version" ]] || { echo "images: no appVersion in charts/svc/Chart.yaml" >&2; exit 1; }

push=false
if [[ "${1:-}" == "--push" ]]; then push=true; shift; fi
all=(apiserver operator engine builder runner-python runner-node runner-bun)
images=("$@")
[[ ${#images[@]} -gt 0 ]] || images=("${all[@]}")
for name in "${images[@]}"; do
  [[ -f "$root/images/$name/Dockerfile" ]] || { echo "images: no images/$name/Dockerfile" >&2; exit 1; }
done

if docker buildx version >/dev/null 2>&1; then
  engine=buildx
elif command -v buildah >/dev/null 2>&1; then
  engine=buildah
else
  echo "images: neither docker buildx nor buildah is installed: build the images on a machine" >&2
  echo "        with a container engine (these development machines have none)." >&2
  exit 1
fi

for name in "${images[@]}"; do
  tag="$repository/$name:$version"
  echo "images: building $tag with $engine"
  case "$engine" in
    buildx)
      if $push; then
        docker buildx build --push ${SVC_IMAGE_PLATFORMS:+--platform "$SVC_IMAGE_PLATFORMS"} \
          -f "$root/images/$name/Dockerfile" -t "$tag" "$root"
      else
        docker buildx build --load -f "$root/images/$name/Dockerfile" -t "$tag" "$root"
      fi
      ;;
    buildah)
      buildah bud --layers -f "$root/images/$name/Dockerfile" -t "$tag" "$root"
      if $push; then buildah push "$tag"; fi
      ;;
  esac
done
echo "images: done (${images[*]} at $version)"
