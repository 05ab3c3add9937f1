// The client's address for a request that does not pass through Fastify (a WebSocket upgrade),
// chosen as Fastify chooses `req.ip` (decision 0028): `X-Forwarded-For` is read only when the peer
// is a proxy listed in TRUST_PROXY, walking from the nearest hop back while the hop is trusted. The
// failed-authentication limit keys on this, so it must be the same address the HTTP guard counts.
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

const NAMED: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/** `::ffff:1.2.3.4` judged as `1.2.3.4`, as proxy-addr does. */
const plain = (a: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a) ? a.slice(7) : a);

/** Whether an address is one of the TRUST_PROXY entries. */
function trustedCheck(trustProxy: readonly string[]): (a: string) => boolean {
  const trusted = new BlockList();
  for (const entry of trustProxy) {
    for (const [addr, bits, type] of NAMED[entry] ?? []) trusted.addSubnet(addr, bits, type);
    if (NAMED[entry]) continue;
    const [addr, bits] = entry.split('/');
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    trusted.addSubnet(addr, bits === undefined ? (type === 'ipv6' ? 128 : 32) : Number(bits), type);
  }
  return (a: string) => {
    const p = plain(a);
    const family = isIP(p);
    return family !== 0 && trusted.check(p, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * Whether the request reached the proxy in front over TLS: its peer is a proxy listed in TRUST_PROXY
 * and `X-Forwarded-Proto` (its first value, as Fastify reads it) is https or wss. From any other
 * peer the header is ignored.
 */
export function forwardedTlsResolver(trustProxy: readonly string[]): (req: IncomingMessage) => boolean {
  if (trustProxy.length === 0) return () => false;
  const isTrusted = trustedCheck(trustProxy);
  return (req) => {
    if (!isTrusted(req.socket.remoteAddress ?? '')) return false;
    const header = req.headers['x-forwarded-proto'];
    const first = (Array.isArray(header) ? header[0] : (header ?? '')).split(',')[0].trim().toLowerCase();
    return first === 'https' || first === 'wss';
  };
}

export function clientAddressResolver(trustProxy: readonly string[]): (req: IncomingMessage) => string {
  if (trustProxy.length === 0) return (req) => req.socket.remoteAddress ?? 'unknown';
  const isTrusted = trustedCheck(trustProxy);
  return (req) => {
    const peer = req.socket.remoteAddress ?? 'unknown';
    if (!isTrusted(peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean)
      .reverse();
    let address = peer;
    for (const hop of hops) {
      address = hop;
      if (!isTrusted(hop)) break;
    }
    return address;
  };
}
