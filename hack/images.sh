#!/usr/bin/env bash
# Builds the platform's images from images/*/Dockerfile (repository root as the context) and,
# with --push, pushes them. Every image is tagged with the chart's appVersion
# (charts/svc/Chart.yaml), the one place the version is written, so what the chart installs by
# default is what this builds. Uses `docker buildx`, else `buildah`.
#
# --local builds with buildah on a machine that reaches no container registry: from the bases
# hack/image-bases.sh makes (build arguments of the same Dockerfiles), RUN steps with the runc
# that hack/build-tools.sh --node builds, and each image written as an OCI archive to
# .dev/images/<name>.tar, which hack/node.sh imports into the real node's containerd. It prints
# each image's size and user.
#
# Usage: hack/images.sh [--push | --local] [image ...]   (default: every image)
#   SVC_IMAGE_REPOSITORY  where the images go (default ghcr.io/svc-platform, the chart's default)
#   SVC_IMAGE_PLATFORMS   with --push and buildx, e.g. linux/amd64,linux/arm64
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repository="${SVC_IMAGE_REPOSITORY:-ghcr.io/svc-platform}"
version="$(sed -n -E "s/^appVersion: *[\"']?([^\"']+)[\"']? *$/\1/p" "$root/charts/svc/Chart.yaml")"
[[ -n "$version" ]] || { echo "images: no appVersion in charts/svc/Chart.yaml" >&2; exit 1; }

push=false
local_bases=false
if [[ "${1:-}" == "--push" ]]; then push=true; shift; fi
if [[ "${1:-}" == "--local" ]]; then local_bases=true; shift; fi
all=(apiserver operator engine builder runner-python runner-node runner-bun)
images=("$@")
[[ ${#images[@]} -gt 0 ]] || images=("${all[@]}")
for name in "${images[@]}"; do
  [[ -f "$root/images/$name/Dockerfile" ]] || { echo "images: no images/$name/Dockerfile" >&2; exit 1; }
done

if $local_bases; then
  bash "$root/hack/node-packages.sh"
  bash "$root/hack/build-tools.sh" --node
  bash "$root/hack/image-bases.sh"
  export BUILDAH_RUNTIME="${BUILDAH_RUNTIME:-$root/.tools/bin/runc}"
  out="$root/.dev/images"
  mkdir -p "$out"
  suite=bookworm
  base_args=(
    --build-arg "NODE_IMAGE=localhost/svc-base/node:20-$suite"
    --build-arg "PYTHON_IMAGE=localhost/svc-base/python:3.11-$suite"
    --build-arg "BUN_IMAGE=localhost/svc-base/bun:1.4.5-$suite"
  )
  for name in "${images[@]}"; do
    tag="$repository/$name:$version"
    args=("${base_args[@]}")
    # runner-node's default base is Node 22 (the Node runner's supported line): its own base.
    [[ "$name" == runner-node ]] && args+=(--build-arg "NODE_IMAGE=localhost/svc-base/node:22-$suite")
    start=$SECONDS
    echo "images: building $tag (local bases)"
    # RUN steps trust what this machine trusts (its registries may sit behind a proxy with a CA
    # of its own): the host's CA bundle is mounted over the image's while they run, and is not
    # left in the image.
    buildah bud --quiet --layers --network host "${args[@]}" \
      --volume /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro -f "$root/images/$name/Dockerfile" \
      -t "$tag" "$root" 2> >(grep -v "raise ambient capability" >&2) >/dev/null
    rm -f "$out/$name.tar"
    buildah push --quiet "$tag" "oci-archive:$out/$name.tar:$tag" >/dev/null
    echo "images: $tag: $(buildah images --format '{{.Size}}' "$tag" | head -1)," \
      "user $(buildah inspect --format '{{.OCIv1.Config.User}}' "$tag"), $((SECONDS - start)) s"
  done
  # The pod sandbox's image, and the cluster tests' MongoDB-wire server and cron trigger.
  buildah push --quiet "localhost/svc-test/curl:$suite" "oci-archive:$out/curl.tar:localhost/svc-test/curl:$suite" >/dev/null
  buildah push --quiet registry.k8s.io/pause:3.10 "oci-archive:$out/pause.tar:registry.k8s.io/pause:3.10" >/dev/null
  ferretdb=$(buildah images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/svc-test/ferretdb:' | head -1)
  buildah push --quiet "$ferretdb" "oci-archive:$out/ferretdb.tar:$ferretdb" >/dev/null
  echo "images: done (${images[*]} at $version, archives in ${out#"$root"/})"
  exit 0
fi

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
