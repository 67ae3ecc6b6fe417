/**
 * The two settings of a project's svc.yaml the deploy page needs before
 * uploading, to create a missing agent as `svc deploy` does: top-level
 * `runtime` and `type` (the server applies the whole file at deploy).
 */

/** The runtime and type a svc.yaml names at its top level, when it does. */
export function svcYamlSettings(text: string): { runtime?: string; type?: string } {
  const found: { runtime?: string; type?: string } = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^(runtime|type):\s*["']?([A-Za-z0-9._-]+)["']?\s*(#.*)?$/.exec(line);
    if (m) found[m[1] as 'runtime' | 'type'] = m[2];
  }
  return found;
}
