// Which addresses an outbound call to a user-given URL may reach: public unicast only.
// Every block of the IANA IPv4 and IPv6 special-purpose address registries is classified here
// (docs/decisions/0016-ssrf-address-ranges.md), plus multicast, and IPv6 outside global unicast
// (2000::/3). Blocks that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 well-known
// prefix, 6to4, Teredo) are judged by that IPv4 address, whichever way the literal is written.
import { BlockList, isIP } from 'node:net';

/** refuse: never reachable; the others name where the embedded IPv4 address sits. */
export type RangeRule = 'refuse' | 'last32' | '6to4' | 'teredo';

export interface SpecialRange {
  net: string;
  prefix: number;
  name: string;
  rule: RangeRule;
}

const r = (cidr: string, name: string, rule: RangeRule = 'refuse'): SpecialRange => {
  const [net, prefix] = cidr.split('/');
  return { net, prefix: Number(prefix), name, rule };
};

/** IANA IPv4 special-purpose registry (every entry, nested ones included), multicast, broadcast. */
export const IPV4_RANGES: SpecialRange[] = [
  r('0.0.0.0/8', 'this network'),
  r('0.0.0.0/32', 'this host on this network'),
  r('10.0.0.0/8', 'private use'),
  r('100.64.0.0/10', 'shared address space (carrier-grade NAT)'),
  r('127.0.0.0/8', 'loopback'),
  r('169.254.0.0/16', 'link local (cloud metadata)'),
  r('172.16.0.0/12', 'private use'),
  r('192.0.0.0/24', 'IETF protocol assignments'),
  r('192.0.0.0/29', 'IPv4 service continuity prefix (DS-Lite)'),
  r('192.0.0.8/32', 'IPv4 dummy address'),
  r('192.0.0.9/32', 'Port Control Protocol anycast'),
  r('192.0.0.10/32', 'TURN anycast'),
  r('192.0.0.170/32', 'NAT64/DNS64 discovery'),
  r('192.0.0.171/32', 'NAT64/DNS64 discovery'),
  r('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  r('192.31.196.0/24', 'AS112-v4'),
  r('192.52.193.0/24', 'AMT'),
  r('192.88.99.0/24', 'deprecated 6to4 relay anycast'),
  r('192.168.0.0/16', 'private use'),
  r('192.175.48.0/24', 'direct delegation AS112 service'),
  r('198.18.0.0/15', 'benchmarking'),
  r('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  r('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  r('224.0.0.0/4', 'multicast'),
  r('240.0.0.0/4', 'reserved'),
  r('255.255.255.255/32', 'limited broadcast'),
];

/** IANA IPv6 special-purpose registry (every entry), plus deprecated site-local and multicast. */
export const IPV6_RANGES: SpecialRange[] = [
  r('::/128', 'unspecified'),
  r('::1/128', 'loopback'),
  r('::/96', 'IPv4-compatible (deprecated)', 'last32'),
  r('::ffff:0:0/96', 'IPv4-mapped', 'last32'),
  r('64:ff9b::/96', 'NAT64 well-known prefix', 'last32'),
  r('64:ff9b:1::/48', 'NAT64 local-use prefix'),
  r('100::/64', 'discard-only'),
  r('100:0:0:1::/64', 'dummy IPv6 prefix'),
  r('2001::/23', 'IETF protocol assignments'),
  r('2001::/32', 'Teredo', 'teredo'),
  r('2001:1::1/128', 'Port Control Protocol anycast'),
  r('2001:1::2/128', 'TURN anycast'),
  r('2001:1::3/128', 'DNS-SD service registration anycast'),
  r('2001:2::/48', 'benchmarking'),
  r('2001:3::/32', 'AMT'),
  r('2001:4:112::/48', 'AS112-v6'),
  r('2001:10::/28', 'deprecated ORCHID'),
  r('2001:20::/28', 'ORCHIDv2'),
  r('2001:30::/28', 'drone remote ID entity tags'),
  r('2001:db8::/32', 'documentation'),
  r('2002::/16', '6to4', '6to4'),
  r('2620:4f:8000::/48', 'direct delegation AS112 service'),
  r('3fff::/20', 'documentation'),
  r('5f00::/16', 'SRv6 SIDs'),
  r('fc00::/7', 'unique local'),
  r('fe80::/10', 'link-local unicast'),
  r('fec0::/10', 'site-local (deprecated)'),
  r('ff00::/8', 'multicast'),
].sort((a, b) => b.prefix - a.prefix); // most specific first

const v4Blocked = new BlockList();
for (const x of IPV4_RANGES) v4Blocked.addSubnet(x.net, x.prefix, 'ipv4');
const v6Lists = IPV6_RANGES.map((x) => {
  const list = new BlockList();
  list.addSubnet(x.net, x.prefix, 'ipv6');
  return { range: x, list };
});
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (the URL parser writes it canonically first). */
function groupsOf(v6: string): number[] {
  const host = new URL(`http://[${v6}]/`).hostname.slice(1, -1);
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 addresses a range embeds in `v6`, all of which must be public. */
function embedded(rule: RangeRule, v6: string): string[] {
  const g = groupsOf(v6);
  if (rule === 'last32') return [v4Of(g[6], g[7])];
  if (rule === '6to4') return [v4Of(g[1], g[2])];
  // Teredo: the server at bits 32-63, the client's own address inverted in the last 32 bits.
  return [v4Of(g[2], g[3]), v4Of(~g[6] & 0xffff, ~g[7] & 0xffff)];
}

/** The special-purpose range an IPv6 address falls in, most specific first; undefined if none. */
export function specialRangeOf(v6: string): SpecialRange | undefined {
  return v6Lists.find((x) => x.list.check(v6, 'ipv6'))?.range;
}

const isPublicV4 = (v4: string) => !v4Blocked.check(v4, 'ipv4');

export function isPublicAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  if (a.includes('%')) return false; // scoped (zone id): link-local by nature
  const kind = isIP(a);
  if (kind === 4) return isPublicV4(a);
  if (kind !== 6) return false;
  const range = specialRangeOf(a);
  if (range) return range.rule !== 'refuse' && embedded(range.rule, a).every(isPublicV4);
  return globalUnicast.check(a, 'ipv6');
}
