// Wrapper module that builds the CNI reference plugins the real node's pods are wired with
// (bridge, host-local, loopback, portmap) from the Go module proxy.
module svc.dev/hack/tools/cni

go 1.26.8

require github.com/containernetworking/plugins v1.10.0 // indirect
