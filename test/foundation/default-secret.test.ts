// No usable default secret (decision 0017): a service started without JWT_SECRET does not accept
// a token signed with any secret published in this repository, and signs with its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { KNOWN_SECRETS } from '../../src/config.ts';

let svc: TestService;
const ORG = 'demo-energy';
before(async () => {
  svc = await startTestService({ env: { JWT_SECRET: '' } }); // unset: DATA_DIR=:memory: gets a random one
  await svc.createOrg(ORG);
});
after(() => svc.stop());

const mint = (secret: string) => {
  const now = Math.floor(svc.clock.now().getTime() / 1000);
  return new SignJWT({ tenant_id: ORG, org_id: ORG, roles: ['ORG_ADMIN'], platform_staff: true, platform_admin: true })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('forged-admin')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(secret));
};
const vocabulary = (token: string) => svc.request({ method: 'GET', url: '/api/twin/registry/vocabulary', headers: { authorization: `Bearer ${token}` } });

test('without JWT_SECRET, an administrator token signed with a published secret is refused', async () => {
  assert.deepEqual(svc.config.jwtSecretSource, { kind: 'per-process' });
  for (const secret of KNOWN_SECRETS) {
    const res = await vocabulary(await mint(secret));
    assert.equal(res.statusCode, 401, `${secret}: ${res.body}`);
    assert.equal(typeof json(res).detail, 'string');
  }
  // The service's own secret still works (the harness signs like the identity module does).
  assert.equal((await vocabulary(await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] }))).statusCode, 200);
});
