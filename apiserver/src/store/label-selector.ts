/**
 * The equality-based label selectors the API server's lists use
 * (`svc.dev/agent-id=<id>`, `a=b,c!=d`, `key`, `!key`), evaluated against an
 * object's labels so a list can be answered from a cache. A selector with
 * set-based terms (`in`, `notin`) is not parsed: the caller asks the API.
 */

/** One term of a selector. */
export type SelectorTerm =
  { key: string; op: '=' | '!='; value: string } | { key: string; op: 'exists' | '!exists' };

const TERM = /^(!?)([A-Za-z0-9./_-]+)(?:\s*(==|=|!=)\s*([A-Za-z0-9._-]*))?$/;

/** The terms of `selector`, or null when it has a form this module does not evaluate. */
export function parseLabelSelector(selector: string): SelectorTerm[] | null {
  const terms: SelectorTerm[] = [];
  for (const raw of selector.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const match = TERM.exec(part);
    if (!match) return null;
    const [, not, key, op, value] = match;
    if (op === undefined) terms.push({ key: key!, op: not ? '!exists' : 'exists' });
    else if (not) return null;
    else terms.push({ key: key!, op: op === '!=' ? '!=' : '=', value: value ?? '' });
  }
  return terms;
}

/** Whether `labels` satisfy every term. */
export function matchesLabelSelector(
  labels: Record<string, string> | undefined,
  terms: readonly SelectorTerm[],
): boolean {
  return terms.every((term) => {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, term.key);
    switch (term.op) {
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case '=':
        return has && labels[term.key] === term.value;
      case '!=':
        return !has || labels[term.key] !== term.value;
    }
  });
}
