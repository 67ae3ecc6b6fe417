// Command coredns is CoreDNS with only the plugins the real node's in-cluster names need
// (hack/node): Services and Pods of the node's API from the kubernetes plugin, everything
// else forwarded to the host's resolver. The plugin list is the Corefile's order of execution.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
)

var directives = []string{"bind", "errors", "health", "ready", "kubernetes", "cache", "loop", "forward"}

func init() { dnsserver.Directives = directives }

func main() { coremain.Run() }
