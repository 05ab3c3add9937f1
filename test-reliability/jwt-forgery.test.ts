// T-21: the JWT forgery set. Every forged, tampered, expired or foreign token is refused with the
// spec's 401/403 details; none is accepted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SignJWT, UnsecuredJWT, generateKeyPair } from 'jose';
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { fixtureModule } from '../test/helpers/fixtures.ts';
import type { ManualClock } from '../src/platform/clock.ts';
import { assertRefused } from '../test/helpers/refusal.ts';

let svc: TestService;
const ORG = 'acme';
const URL_ = '/api/test-fixture/awaiting';
let good: string;

before(async () => {
  svc = await startTestService({ extraModules: [fixtureModule], env: { RATE_LIMIT_USER_PER_MIN: '1000000', RATE_LIMIT_ANON_PER_MIN: '1000000' } });
  await svc.createOrg(ORG);
  good = await svc.token({ orgId: ORG, roles: ['VIEWER'] });
});
after(() => svc.stop());

const now = () => Math.floor(svc.clock.now().getTime() / 1000);
const secret = () => new TextEncoder().encode(svc.config.jwtSecret);
const claims = { tenant_id: ORG, org_id: ORG, roles: ['ORG_ADMIN'] };

async function status(token: string) {
  const res = await svc.request({ method: 'GET', url: URL_, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, detail: json(res).detail };
}

function hs256(payload: Record<string, unknown>, opts: { iat?: number; exp?: number; nbf?: number; key?: Uint8Array } = {}) {
  const j = new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('u1')
    .setIssuedAt(opts.iat ?? now())
    .setExpirationTime(opts.exp ?? now() + 600);
  if (opts.nbf) j.setNotBefore(opts.nbf);
  return j.sign(opts.key ?? secret());
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function flipSignatureBit(token: string): string {
  const [h, p, sig] = token.split('.');
  const bytes = Buffer.from(sig, 'base64url');
  bytes[0] ^= 1;
  return `${h}.${p}.${bytes.toString('base64url')}`;
}

function nonCanonicalSpelling(token: string): string {
  const [h, p, sig] = token.split('.');
  assert.equal(sig.length, 43);
  const last = B64URL.indexOf(sig.at(-1)!);
  const spelled = `${h}.${p}.${sig.slice(0, -1)}${B64URL[last ^ 1]}`;
  assert.deepEqual(Buffer.from(spelled.split('.')[2], 'base64url'), Buffer.from(sig, 'base64url'), 'same bytes, other spelling');
  return spelled;
}

test('the untampered token works (control)', async () => {
  assert.equal((await status(good)).status, 200);
});

test('forgeries are refused: alg none, wrong key, RS256, ES256, flipped bits, truncation', async () => {
  const rsa = await generateKeyPair('RS256');
  const ec = await generateKeyPair('ES256');
  const forged = [
    new UnsecuredJWT(claims)
      .setSubject('u1')
      .setIssuedAt(now())
      .setExpirationTime(now() + 600)
      .encode(),
    await hs256(claims, { key: new TextEncoder().encode('wrong-key-wrong-key-wrong-key-wrong-key') }),
    await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setSubject('u1').setIssuedAt().setExpirationTime('10m').sign(rsa.privateKey),
    await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).setSubject('u1').setIssuedAt().setExpirationTime('10m').sign(ec.privateKey),
    // a data bit of the signature flipped (the first byte's lowest bit), re-encoded canonically
    flipSignatureBit(good),
    // the same bytes spelled with a stray padding bit in the last character (HS256: 32 bytes, 43
    // characters, the last carrying 4 data bits and 2 unused): decoders ignore it, the service refuses it
    nonCanonicalSpelling(good),
    good.split('.').slice(0, 2).join('.') + '.',
    good.split('.').slice(0, 2).join('.'),
    // header swapped to none, signature kept
    Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url') + '.' + good.split('.')[1] + '.',
    // payload changed to another organisation, signature kept
    good.split('.')[0] +
      '.' +
      Buffer.from(JSON.stringify({ ...claims, org_id: 'other', tenant_id: 'other', sub: 'u1', iat: now(), exp: now() + 600 })).toString('base64url') +
      '.' +
      good.split('.')[2],
  ];
  for (const t of forged) assert.deepEqual(await status(t), { status: 401, detail: 'Invalid or expired token' });
});

test('time: exp 61 s past, iat and nbf in the future are refused', async () => {
  assertRefused(await status(await hs256(claims, { iat: now() - 700, exp: now() - 61 })), 401, 'Invalid or expired token');
  assert.equal((await status(await hs256(claims, { iat: now() + 3600, exp: now() + 7200 }))).detail, 'Invalid or expired token');
  assert.equal((await status(await hs256(claims, { nbf: now() + 3600 }))).detail, 'Invalid or expired token');
});

test('a token that expires stops working when the clock passes exp', async () => {
  const t = await hs256(claims, { exp: now() + 30 });
  assert.equal((await status(t)).status, 200);
  (svc.clock as ManualClock).advance(31_000);
  assertRefused(await status(t), 401, 'Invalid or expired token');
});

test('missing org_id, missing or empty roles, missing tenant', async () => {
  assert.deepEqual(await status(await hs256({ tenant_id: ORG, roles: ['VIEWER'] })), { status: 400, detail: 'Organisation context missing' });
  assert.deepEqual(await status(await hs256({ tenant_id: ORG, org_id: ORG })), { status: 403, detail: 'Roles missing on token' });
  assert.deepEqual(await status(await hs256({ tenant_id: ORG, org_id: ORG, roles: [] })), { status: 403, detail: 'Roles missing on token' });
  assert.deepEqual(await status(await hs256({ org_id: ORG, roles: ['VIEWER'] })), { status: 401, detail: 'Tenant missing' });
  assert.deepEqual(await status(await hs256({ ...claims, roles: ['SUPERUSER'] })), { status: 403, detail: 'Insufficient permissions' });
});

test('an identity-provider style id_token used as an access token is refused', async () => {
  const rsa = await generateKeyPair('RS256');
  const idToken = await new SignJWT({ tid: 'tenant-guid', groups: ['g1'], aud: 'app-id', iss: 'https://login.example/tenant-guid/v2.0' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k' })
    .setSubject('someone')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(rsa.privateKey);
  assertRefused(await status(idToken), 401, 'Invalid or expired token');
});

test('property: 10,000 random single-character mutations of a valid token are never accepted as another identity', async () => {
  const sample = fc.sample(
    fc.tuple(fc.nat({ max: good.length - 1 }), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.')),
    {
      numRuns: Number(process.env.JWT_MUTATIONS ?? 10_000),
      seed: 7,
    },
  );
  let accepted = 0;
  for (const [i, ch] of sample) {
    if (good[i] === ch) continue;
    const mutated = good.slice(0, i) + ch + good.slice(i + 1);
    const r = await status(mutated);
    assert.ok(r.status < 500, `server error for mutation at ${i}`);
    if (r.status === 200) {
      // Only base64url spellings that decode to the very same bytes may pass (final-character padding bits).
      const seg = mutated.split('.');
      assert.equal(Buffer.from(seg[2], 'base64url').toString('hex'), Buffer.from(good.split('.')[2], 'base64url').toString('hex'));
      assert.equal(Buffer.from(seg[1], 'base64url').toString(), Buffer.from(good.split('.')[1], 'base64url').toString());
      accepted++;
    }
  }
  console.log(`jwt mutations: ${sample.length} tried, ${accepted} accepted (all byte-identical re-spellings)`);
});
