/**
 * Where a deployment's code came from, recorded on the AgentDeployment itself
 * (one annotation) so every deployment record shows it: a push to a linked
 * repository names the repository, branch and commit; an upload records
 * nothing.
 */
import type { AgentDeployment } from '../../../crds/src/index.js';

/** The annotation holding the source, as JSON. */
export const SOURCE_ANNOTATION = 'svc.dev/source';

/** A deployment made by a code-host push. */
export interface CodehostSource {
  type: 'codehost';
  repository: string;
  branch: string;
  commit: string;
}

/** The annotations that record `source` on a new deployment. */
export function sourceAnnotations(source: CodehostSource): Record<string, string> {
  const { type, repository, branch, commit } = source;
  return { [SOURCE_ANNOTATION]: JSON.stringify({ type, repository, branch, commit }) };
}

/** The source recorded on `deployment`; null for an upload (or an annotation that is not one). */
export function sourceOf(deployment: AgentDeployment): CodehostSource | null {
  const raw = deployment.metadata.annotations?.[SOURCE_ANNOTATION];
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<CodehostSource> | null;
    const fields = [parsed?.repository, parsed?.branch, parsed?.commit];
    if (parsed?.type !== 'codehost' || !fields.every((f) => typeof f === 'string')) return null;
    return {
      type: 'codehost',
      repository: parsed.repository!,
      branch: parsed.branch!,
      commit: parsed.commit!,
    };
  } catch {
    return null;
  }
}
