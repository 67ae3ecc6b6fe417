// Wrapper module that builds containerd (the daemon, its runc shim and ctr) from the Go module
// proxy, for the real node that hack/node.sh brings up (the cluster tests' container runtime).
module svc.dev/hack/tools/containerd

go 1.26.6

require github.com/containerd/containerd/v2 v2.4.2 // indirect
