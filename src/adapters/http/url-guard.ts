import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/** A resolver returning every address of a host (dns.lookup with `all`); tests pass their own. */
export type LookupAll = (host: string) => Promise<string[]>;

export const lookupAll: LookupAll = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/**
 * The IPv4 addresses an IPv6 address carries, which a packet to it may end up reaching:
 * IPv4-compatible `::a.b.c.d` (::/96), IPv4-mapped `::ffff:a.b.c.d` and its translated form
 * (::ffff:0:0/96, ::ffff:0:0:0/96), NAT64 `64:ff9b::/96`, 6to4 `2002:AABB:CCDD::/16`, and both
 * the server and the (bit-flipped) client address of Teredo `2001::/32`.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const range = address.range();
  if (p.slice(0, 6).every((part) => part === 0)) return [v4(p[6]!, p[7]!)];
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [v4(p[6]!, p[7]!)];
    case '6to4':
      return [v4(p[1]!, p[2]!)];
    case 'teredo':
      return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
    default:
      return [];
  }
}

function isPrivateIPv4(address: ipaddr.IPv4): boolean {
  // ipaddr.js names every special-purpose range (private, loopback, linkLocal, carrierGradeNat,
  // reserved, multicast...); only ordinary unicast may be called. BLOCKED is kept as a floor.
  return address.range() !== 'unicast' || BLOCKED.check(address.toString(), 'ipv4');
}

/**
 * True for an address a production webhook may not target: any IPv4 outside ordinary unicast,
 * any IPv6 outside global unicast, and any IPv6 form that embeds such an IPv4 address.
 * Not an IP address at all: false.
 */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return isPrivateIPv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded.length > 0) return embedded.some(isPrivateIPv4);
  return v6.range() !== 'unicast' || BLOCKED.check(address, 'ipv6');
}

export const PRIVATE_ADDRESS = 'must not point to a private, loopback or link-local address';

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
 * endpoint is saved and again before every attempt, since DNS can change in between; the
 * connection itself checks the address it dials as well (postJson's `refuseAddress`), since DNS
 * can also change between this check and the connect (rebinding).
 */
export async function privateAddressProblem(raw: string, field: string, resolve: LookupAll = lookupAll): Promise<string | undefined> {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) return `${field} ${PRIVATE_ADDRESS}`;
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return `${field} host '${host}' does not resolve`;
    }
  }
  if (addresses.some(isPrivateAddress)) return `${field} ${PRIVATE_ADDRESS}`;
  return undefined;
}
