/** A payload rendered as a readable tree: branches foldable, leaves as JSON values. */
import { payloadTree, type TreeNode } from './payload-tree.js';

/** The tree of `payload`. */
export function PayloadView({ payload }: { payload: unknown }) {
  const root = payloadTree(payload ?? {});
  if (root.children.length === 0) return <span class="muted">no payload</span>;
  return <Branch nodes={root.children} />;
}

function Branch({ nodes }: { nodes: TreeNode[] }) {
  return (
    <ul class="tree">
      {nodes.map((n) => (
        <li key={n.key}>
          {n.children.length > 0 ? (
            <details open={nodes.length <= 8}>
              <summary>
                <span class="k">{n.key}</span> <span class="muted">{n.text}</span>
              </summary>
              <Branch nodes={n.children} />
            </details>
          ) : (
            <>
              <span class="k">{n.key}</span>: <span class={`v v-${n.kind}`}>{n.text}</span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
