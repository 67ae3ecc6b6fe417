#!/usr/bin/env bash
# Patches kube-network-policies v0.8.0 for the build (hack/build-tools.sh runs this in a copy of
# this wrapper module): its nftables rules hand packets to the nfqueue listener with the xtables
# NFQUEUE target (revision 3, through nft_compat) instead of the native `queue` expression, in a
# copy of the module source that the copied go.mod replaces the module with.
#
# Kernels built without CONFIG_NFT_QUEUE (this machine's 6.18 among them) reject every rule with
# a `queue` expression (`nft add rule ... queue num 100`: "No such file or directory"), so the
# controller's table never loads and no policy is enforced. CONFIG_NETFILTER_XT_TARGET_NFQUEUE
# and CONFIG_NFT_COMPAT give the same verdict (NF_QUEUE_NR(num), with NFQ_FLAG_BYPASS for
# --fail-open) to the same nfnetlink_queue listener; iptables-nft writes it the same way, and
# `nft list ruleset` shows it as `queue num 100 [bypass]`. The target is also there on kernels
# that have the native expression.
set -euo pipefail
module_dir=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kube-network-policies)
cp -r "$module_dir" kube-network-policies-src
chmod -R u+w kube-network-policies-src
file=kube-network-policies-src/pkg/networkpolicy/controller.go
# Both chains (postrouting, and prerouting for DNS) build their verdict the same way.
perl -0pi -e 's/queue := &expr\.Queue\{Num: uint16\(c\.config\.QueueID\)\}\n\tif c\.config\.FailOpen \{\n\t\tqueue\.Flag = expr\.QueueFlagBypass\n\t\}/queue := nfqueueTarget(uint16(c.config.QueueID), c.config.FailOpen)/g' "$file"
if [[ $(grep -c 'queue := nfqueueTarget(' "$file") -ne 2 ]] || grep -q 'expr\.Queue{' "$file"; then
  echo "tools: kube-network-policies' controller.go no longer builds its queue verdict the way patch.sh expects; review it" >&2
  exit 1
fi
cat >kube-network-policies-src/pkg/networkpolicy/nfqueue_target.go <<'GO'
package networkpolicy

import (
	"encoding/binary"

	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"
)

// nfqueueTarget is `queue num <num> [bypass]` as the xtables NFQUEUE target (revision 3), which
// nft_compat runs on kernels without the native nft queue expression (CONFIG_NFT_QUEUE).
func nfqueueTarget(num uint16, bypass bool) *expr.Target {
	// struct xt_NFQ_info_v3 { __u16 queuenum; __u16 queues_total; __u16 flags; }, host byte
	// order, padded to XT_ALIGN (8 bytes) as iptables sends it.
	info := make([]byte, 8)
	binary.NativeEndian.PutUint16(info[0:], num)
	binary.NativeEndian.PutUint16(info[2:], 1)
	if bypass {
		binary.NativeEndian.PutUint16(info[4:], 0x1) // NFQ_FLAG_BYPASS
	}
	unknown := xt.Unknown(info)
	return &expr.Target{Name: "NFQUEUE", Rev: 3, Info: &unknown}
}
GO
go mod edit -replace sigs.k8s.io/kube-network-policies=./kube-network-policies-src
