// Which addresses an outbound call to a user-given URL may reach: public unicast only.
// Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, reserved and
// documentation ranges are refused, in IPv4, IPv6 and IPv4-mapped IPv6 forms.
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address, if any. */
function embeddedV4(addr: string): string | null {
  const m = /^(?:0*:)*(?:0*:)?(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (m) return m[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(addr);
  if (hex) {
    const a = parseInt(hex[1], 16);
    const b = parseInt(hex[2], 16);
    return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return null;
}

export function isPublicAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const kind = isIP(a);
  if (kind === 4) return !blocked.check(a, 'ipv4');
  if (kind === 6) {
    const v4 = embeddedV4(a);
    if (v4) return !blocked.check(v4, 'ipv4');
    return !blocked.check(a, 'ipv6');
  }
  return false;
}
