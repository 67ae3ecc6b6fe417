/** Agent addresses: `<name>-<6 random characters>.<agent_domain>`. */

const LABEL = /^[a-z0-9]+(-[a-z0-9]+)*-[a-z0-9]{6}$/;

/** The address label of a Host header under `domain`, or null when it is not an agent address. */
export function addressLabelOf(host: string | undefined, domain: string): string | null {
  if (!host) return null;
  const hostname = host.replace(/:\d+$/, '').toLowerCase().replace(/\.$/, '');
  const suffix = `.${domain.toLowerCase()}`;
  if (!hostname.endsWith(suffix)) return null;
  const label = hostname.slice(0, -suffix.length);
  return LABEL.test(label) && label.length <= 63 ? label : null;
}
