#!/usr/bin/env bash
# The cluster path with real containers, on a machine with Docker and kind (these development
# machines have no container engine; there the same chart and flow are tested against a real
# kube-apiserver with kwok's fake nodes: test/chart/). It creates a kind cluster, builds the
# platform's images (hack/images.sh) and loads them into it, runs a throwaway MongoDB in the
# cluster, and installs charts/svc with the images just built; then prints how to get a key.
#
# Usage: hack/kind.sh [up|down]   (default up)
#   KIND_CLUSTER  cluster name (default svc)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="${KIND_CLUSTER:-svc}"
namespace=svc-system
repository=svc.local
version="$(sed -n -E "s/^appVersion: *[\"']?([^\"']+)[\"']? *$/\1/p" "$root/charts/svc/Chart.yaml")"
helm="$(command -v helm || echo "$root/.tools/bin/helm")"
kubectl="$(command -v kubectl || echo "$root/.tools/bin/kubectl")"

for tool in docker kind; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "kind.sh: $tool is not installed; this script needs Docker and kind." >&2
    exit 1
  }
done
docker info >/dev/null 2>&1 || { echo "kind.sh: the Docker engine is not running." >&2; exit 1; }

if [[ "${1:-up}" == "down" ]]; then
  kind delete cluster --name "$cluster"
  exit 0
fi

kind get clusters | grep -qx "$cluster" || kind create cluster --name "$cluster" --wait 120s
context="kind-$cluster"

SVC_IMAGE_REPOSITORY="$repository" bash "$root/hack/images.sh"
for name in apiserver operator engine builder runner-python runner-node runner-bun; do
  kind load docker-image --name "$cluster" "$repository/$name:$version"
done

"$kubectl" --context "$context" create namespace "$namespace" --dry-run=client -o yaml |
  "$kubectl" --context "$context" apply -f -
# A throwaway MongoDB for trying the platform out; give a real one's URI in production.
"$kubectl" --context "$context" -n "$namespace" apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: { name: mongodb }
spec:
  selector: { matchLabels: { app: mongodb } }
  template:
    metadata: { labels: { app: mongodb } }
    spec:
      containers:
        - name: mongodb
          image: mongo:7
          ports: [{ containerPort: 27017 }]
---
apiVersion: v1
kind: Service
metadata: { name: mongodb }
spec:
  selector: { app: mongodb }
  ports: [{ port: 27017 }]
YAML

# IfNotPresent: the images were loaded into the nodes, not pushed anywhere.
"$helm" --kube-context "$context" upgrade --install svc "$root/charts/svc" -n "$namespace" \
  --set image.repository="$repository" --set image.pullPolicy=IfNotPresent \
  --set mongodb.uri="mongodb://mongodb.$namespace.svc:27017/svc" \
  --set agents.domain=agents.localhost --set agents.scheme=http \
  --set engine.persistence.size=1Gi --wait --timeout 5m

echo
echo "kind.sh: installed. Next, as the chart's notes say:"
echo "  $kubectl --context $context -n $namespace exec deploy/svc-apiserver -- \\"
echo "    node --import tsx apiserver/src/admin/main.ts create-account --name admin --tier starter"
echo "  $kubectl --context $context -n $namespace port-forward service/svc-apiserver 8000 8001 8002"
