/**
 * Where a tenant's code host may be: the public internet. The API server
 * fetches the URL a tenant gives, so without this a tenant could point it at
 * the platform's own machine or network (loopback, link-local metadata
 * services, private ranges) and read, from the answers and errors, what
 * listens there. The host name is resolved once, every address it has must
 * be public, and the connection is pinned to one of them (git's
 * `http.curloptResolve`, the status check's own lookup), so a name that
 * resolves differently a moment later (DNS rebinding) changes nothing.
 * Loopback is allowed where the policy allows loopback HTTP (tests, a Git
 * server on this machine); private networks where it allows them (a
 * self-hosted Git server inside the installation's network).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { HostUrlError, type HostUrlPolicy } from './host-url.js';

/** A host name that does not resolve (now): refused for a fetch, not for connecting a host. */
export class HostUnresolved extends HostUrlError {}

/** The address a host name is pinned to for one fetch. */
export interface AddressPin {
  /** The URL's host name, as git and the HTTP client see it. */
  hostname: string;
  port: number;
  address: string;
  family: 4 | 6;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Not the public internet: this machine, link-local, private, shared, reserved and multicast. */
const nonPublic = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  nonPublic.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(net, bits, 'ipv6');
}

/** An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) is that IPv4 address. */
function unmapped(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return { address: mapped, type: 'ipv4' };
  return { address, type: isIP(address) === 4 ? 'ipv4' : 'ipv6' };
}

/** Why `address` may not be a tenant's code host under `policy`, or null when it may. */
export function refusedAddress(address: string, policy: HostUrlPolicy): string | null {
  const { address: ip, type } = unmapped(address);
  if (loopback.check(ip, type)) {
    return policy.allowLoopbackHttp ? null : `${address} is this machine's loopback`;
  }
  if (!nonPublic.check(ip, type)) return null;
  return policy.allowPrivateHosts
    ? null
    : `${address} is not a public internet address (private, link-local or reserved)`;
}

/**
 * Resolves the host of `url` and checks every address it has; the pin to
 * connect to; HostUrlError when one is refused, HostUnresolved when the name
 * does not resolve.
 */
export async function pinHost(url: string, policy: HostUrlPolicy): Promise<AddressPin> {
  const parsed = new URL(url);
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = Number(parsed.port || (parsed.protocol === 'http:' ? 80 : 443));
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(hostname)
      ? [{ address: hostname, family: isIP(hostname) }]
      : await lookup(hostname, { all: true, verbatim: true });
  } catch {
    throw new HostUnresolved(`The code host ${parsed.host} does not resolve.`);
  }
  const [first] = addresses;
  if (!first) throw new HostUnresolved(`The code host ${parsed.host} does not resolve.`);
  for (const { address } of addresses) {
    const reason = refusedAddress(address, policy);
    if (reason) throw new HostUrlError(`The code host ${parsed.host} is refused: ${reason}.`);
  }
  return { hostname, port, address: first.address, family: first.family === 6 ? 6 : 4 };
}
