// The SSRF address rule over every block of the IANA IPv4 and IPv6 special-purpose address
// registries: the first and last address of each, the neighbours just outside, and for blocks that
// embed an IPv4 address, a public and a private one inside (decision 0016).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress } from '../../src/infra/outbound/ip-guard.ts';
import { checkUrl, OutboundRefusedError } from '../../src/infra/outbound/http-client.ts';

// [block, first, last]: every address of these blocks is refused.
const REFUSED_V4: [string, string, string][] = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255'],
  ['0.0.0.0/32', '0.0.0.0', '0.0.0.0'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255'],
  ['192.0.0.0/29', '192.0.0.0', '192.0.0.7'],
  ['192.0.0.8/32', '192.0.0.8', '192.0.0.8'],
  ['192.0.0.9/32', '192.0.0.9', '192.0.0.9'],
  ['192.0.0.10/32', '192.0.0.10', '192.0.0.10'],
  ['192.0.0.170/32', '192.0.0.170', '192.0.0.170'],
  ['192.0.0.171/32', '192.0.0.171', '192.0.0.171'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255'],
  ['192.31.196.0/24', '192.31.196.0', '192.31.196.255'],
  ['192.52.193.0/24', '192.52.193.0', '192.52.193.255'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255'],
  ['192.175.48.0/24', '192.175.48.0', '192.175.48.255'],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255'],
  ['240.0.0.0/4', '240.0.0.0', '255.255.255.254'],
  ['255.255.255.255/32', '255.255.255.255', '255.255.255.255'],
];

const REFUSED_V6: [string, string, string][] = [
  ['::/128', '::', '::'],
  ['::1/128', '::1', '::1'],
  ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff'],
  ['100:0:0:1::/64', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff'],
  ['2001::/23', '2001:100::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:1::1/128', '2001:1::1', '2001:1::1'],
  ['2001:1::2/128', '2001:1::2', '2001:1::2'],
  ['2001:1::3/128', '2001:1::3', '2001:1::3'],
  ['2001:2::/48', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff'],
  ['2001:3::/32', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:4:112::/48', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff'],
  ['2001:10::/28', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:20::/28', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:30::/28', '2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2620:4f:8000::/48', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff'],
  ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  // Outside global unicast (2000::/3): reserved or unassigned space, including SIIT ::ffff:0:0:0/96.
  ['::/8 (outside ::/96 and the mapped block)', '::1:0:0:0', '0ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['::ffff:0:0:0/96 (IPv4-translated)', '::ffff:0:0:0', '::ffff:0:ffff:ffff'],
  ['below 2000::/3', '400::', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['above 2000::/3', '4000::', 'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
];

// Blocks carrying an IPv4 address: first and last (embedding 0.0.0.0 / 255.255.255.255: refused),
// then a private, a metadata and a public address inside, each in the notations a URL or a resolver
// may use. [block, address, expected public?]
const EMBEDDING: [string, string, boolean][] = [
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:0:0', false],
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:ffff:ffff', false],
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:10.0.0.5', false],
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:a00:5', false],
  ['::ffff:0:0/96 IPv4-mapped', '0:0:0:0:0:ffff:a9fe:a9fe', false],
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:8.8.8.8', true],
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:808:808', true],
  ['::/96 IPv4-compatible', '::2', false],
  ['::/96 IPv4-compatible', '::ffff:ffff', false],
  ['::/96 IPv4-compatible', '::10.0.0.5', false],
  ['::/96 IPv4-compatible', '::a00:5', false],
  ['::/96 IPv4-compatible', '::7f00:1', false],
  ['::/96 IPv4-compatible', '::808:808', true],
  ['64:ff9b::/96 NAT64', '64:ff9b::', false],
  ['64:ff9b::/96 NAT64', '64:ff9b::ffff:ffff', false],
  ['64:ff9b::/96 NAT64', '64:ff9b::10.0.0.5', false],
  ['64:ff9b::/96 NAT64', '64:ff9b::a9fe:a9fe', false],
  ['64:ff9b::/96 NAT64', '64:ff9b::7f00:1', false],
  ['64:ff9b::/96 NAT64', '64:ff9b::8.8.8.8', true],
  ['64:ff9b::/96 NAT64', '64:ff9b::808:808', true],
  ['2002::/16 6to4', '2002::', false],
  ['2002::/16 6to4', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
  ['2002::/16 6to4', '2002:a00:5::1', false],
  ['2002::/16 6to4', '2002:7f00:1::', false],
  ['2002::/16 6to4', '2002:a9fe:a9fe::', false],
  ['2002::/16 6to4', '2002:808:808::1', true],
  // Teredo: server at bits 32-63, client inverted in the last 32 bits; both must be public.
  ['2001::/32 Teredo', '2001::', false],
  ['2001::/32 Teredo', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff', false],
  ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:f5ff:fffa', false], // client 10.0.0.5
  ['2001::/32 Teredo', '2001:0:a00:5:8000:63bf:f7f7:fbfb', false], // server 10.0.0.5
  ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:f7f7:fbfb', true], // server 65.54.227.120, client 8.8.4.4
];

const PUBLIC: string[] = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.0',
  '192.0.3.0',
  '192.88.98.255',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2000::',
  '2001:200::',
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2620:4f:7fff:ffff:ffff:ffff:ffff:ffff',
  '2620:4f:8001::',
  '3ffe::',
  '3fff:1000::',
  '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

test('every special-purpose IPv4 block is refused, first and last address', () => {
  for (const [block, first, last] of REFUSED_V4) {
    assert.equal(isPublicAddress(first), false, `${block} first ${first}`);
    assert.equal(isPublicAddress(last), false, `${block} last ${last}`);
    // The same address written as IPv4-mapped IPv6 is refused as well.
    assert.equal(isPublicAddress(`::ffff:${first}`), false, `${block} mapped ${first}`);
  }
});

test('every special-purpose IPv6 block (and space outside global unicast) is refused, first and last address', () => {
  for (const [block, first, last] of REFUSED_V6) {
    assert.equal(isPublicAddress(first), false, `${block} first ${first}`);
    assert.equal(isPublicAddress(last), false, `${block} last ${last}`);
  }
});

test('blocks that embed an IPv4 address are judged by it, in every notation', () => {
  for (const [block, address, expected] of EMBEDDING) {
    assert.equal(isPublicAddress(address), expected, `${block} ${address}`);
    assert.equal(isPublicAddress(`[${address}]`), expected, `${block} [${address}]`);
  }
});

test('public unicast next to the blocks is allowed', () => {
  for (const a of PUBLIC) assert.equal(isPublicAddress(a), true, a);
});

test('scoped addresses, names and garbage are never public', () => {
  for (const a of ['fe80::1%eth0', '2606:4700:4700::1111%1', 'example.com', '', '1.2.3', '::ffff:1.2.3.256']) {
    assert.equal(isPublicAddress(a), false, a);
  }
});

test('URL literals: hexadecimal IPv4-in-IPv6 and translation prefixes are refused at the URL', () => {
  const refused = [
    'https://[::a00:5]/',
    'https://[::ffff:a00:5]/',
    'https://[::ffff:0:0]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[64:ff9b:1::808:808]/',
    'https://[2002:a00:5::]/',
    'https://[2001:0:4136:e378:8000:63bf:f5ff:fffa]/',
    'https://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[::127.0.0.1]/',
  ];
  for (const u of refused) assert.throws(() => checkUrl(u, { requireHttps: true }), OutboundRefusedError, u);
  for (const u of ['https://[64:ff9b::808:808]/', 'https://[2002:808:808::1]/', 'https://[2606:4700:4700::1111]/']) {
    assert.doesNotThrow(() => checkUrl(u, { requireHttps: true }), u);
  }
});
