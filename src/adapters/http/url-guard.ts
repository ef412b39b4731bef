import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must not reach from a production tenant: loopback, private networks,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified and multicast.
 * Otherwise a merchant could make our servers call into our own network (SSRF).
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** True for an address a production webhook may not target. IPv4-mapped IPv6 is checked as IPv4. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  // URL parsing writes ::ffff:127.0.0.1 as ::ffff:7f00:1
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (mappedHex) {
    const high = parseInt(mappedHex[1]!, 16);
    const low = parseInt(mappedHex[2]!, 16);
    return BLOCKED.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  const family = isIP(address);
  if (family === 0) return false;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why a URL is refused, as a sentence about `field`; undefined when it is acceptable. */
export function urlShapeProblem(raw: string, field: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${field} must be an absolute http or https URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${field} must use http or https, not ${url.protocol.replace(':', '')}`;
  if (url.username || url.password) return `${field} must not contain credentials`;
  if (!url.hostname) return `${field} must have a host`;
  return undefined;
}

/**
 * Resolves the URL's host and refuses it when any address is private. Checked when the
 * endpoint is saved and again before every attempt, since DNS can change in between.
 */
export async function privateAddressProblem(raw: string, field: string): Promise<string | undefined> {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) return `${field} must not point to a private, loopback or link-local address`;
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return `${field} host '${host}' does not resolve`;
    }
  }
  if (addresses.some(isPrivateAddress)) return `${field} must not point to a private, loopback or link-local address`;
  return undefined;
}
