// Public lead intake through HTTP: the lead lands in the configured organisation (account,
// contact, task), whatever organisation the caller names; honeypot; per-address limit; bad input;
// 503 when no organisation is configured.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, startTestService, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';

const URL_ = '/api/notifications/intake/capacity-check';
const ORG = 'intake-org';
let svc: TestService;
let admin: string;
const form = (extra: Record<string, unknown> = {}) => ({
  company: 'Kilo Coaches',
  name: 'Kim Kilo',
  email: 'kim@kilo.example',
  phone: '0113 496 0000',
  depot_postcode: 'LS11 5QN',
  vehicles: 40,
  message: 'Twelve e-coaches next year',
  consent: true,
  ...extra,
});
const post = (payload: unknown, ip = '198.51.100.1') => svc.request({ method: 'POST', url: URL_, payload: payload as object, remoteAddress: ip });
const get = (url: string) => svc.request({ method: 'GET', url, headers: { authorization: `Bearer ${admin}` } });

before(async () => {
  svc = await startTestService({ env: { CRM_INTAKE_ORG_ID: ORG, CRM_INTAKE_PER_HOUR: '3' } });
  await svc.createOrg(ORG, ['crm']);
  await svc.createOrg('intake-other', ['crm']);
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
});
after(() => svc.stop());

test('a request becomes an account, a contact and a call-back task in the configured organisation', async () => {
  const res = await post({ ...form() });
  assert.equal(res.statusCode, 202, res.body);
  const body = json(res);
  assert.equal(body.received, true);
  const accounts = json(await get('/api/notifications/crm/accounts')).accounts;
  assert.equal(accounts.length, 1);
  assert.equal(accounts[0].name, 'Kilo Coaches');
  assert.equal(accounts[0].kind, 'prospect');
  assert.match(accounts[0].notes, /Depot postcode: LS11 5QN/);
  const contacts = json(await get('/api/notifications/crm/contacts')).contacts;
  assert.deepEqual(
    contacts.map((c: any) => [c.name, c.email, c.account_id]),
    [['Kim Kilo', 'kim@kilo.example', accounts[0].id]],
  );
  const tasks = json(await get('/api/notifications/crm/tasks')).tasks;
  assert.equal(tasks.length, 1);
  assert.ok(tasks[0].title.includes(body.reference));
});

test('the caller cannot name an organisation; bad input is 422; the honeypot writes nothing', async () => {
  assertRefused(await post({ ...form(), organisation_id: 'intake-other' }, '198.51.100.2'), 422, { fields: ['body.organisation_id'] });
  assertRefused(await post({ ...form(), consent: false }, '198.51.100.2'), 422, { fields: ['body.consent'] });
  assertRefused(await post({ ...form(), email: 'nope', depot_postcode: 'nowhere' }, '198.51.100.2'), 422, { fields: ['body.email', 'body.depot_postcode'] });
  const bot = await post({ ...form({ company: 'Bot Ltd', website: 'http://spam.example' }) }, '198.51.100.3');
  assert.equal(bot.statusCode, 202);
  const names = json(await get('/api/notifications/crm/accounts')).accounts.map((a: any) => a.name);
  assert.ok(!names.includes('Bot Ltd'));
  const other = await svc.token({ orgId: 'intake-other', roles: ['ORG_ADMIN'] });
  const o = await svc.request({ method: 'GET', url: '/api/notifications/crm/accounts', headers: { authorization: `Bearer ${other}` } });
  assert.equal(json(o).accounts.length, 0);
});

test('an address is limited per hour; another address is not', async () => {
  const ip = '203.0.113.9';
  for (let i = 0; i < 3; i++) assert.equal((await post(form({ company: `Limited ${i}` }), ip)).statusCode, 202);
  const res = await post(form({ company: 'Limited 3' }), ip);
  assertRefused(res, 429, 'Rate limit exceeded');
  assert.ok(Number(res.headers['retry-after']) >= 1);
  // The platform counts the address before the body is read: over the limit, even a bad body is 429.
  assertRefused(await post({ ...form(), consent: false }, ip), 429, 'Rate limit exceeded');
  assert.equal((await post(form({ company: 'Other address' }), '203.0.113.10')).statusCode, 202);
});

test('without a configured organisation the form answers 503 with a clear detail', async () => {
  const bare = await startTestService();
  try {
    const res = await bare.request({ method: 'POST', url: URL_, payload: form() });
    assertRefused(res, 503, 'Lead intake is not configured: the deployment names no organisation for leads (CRM_INTAKE_ORG_ID)');
  } finally {
    await bare.stop();
  }
});

test('erasing a lead erases it from its own submission however the form wrote it (decision 0295)', async () => {
  const lead = form({
    company: 'Lima Lines',
    name: 'Lena Lima',
    email: 'Lena@Lima.example',
    phone: '07700 900321',
    message: 'Please ask for LENA LIMA on +44 7700 900321 or lena@lima.example',
  });
  assert.equal((await post(lead, '198.51.100.40')).statusCode, 202);
  const contact = json(await get('/api/notifications/crm/contacts')).contacts.find((c: any) => c.name === 'Lena Lima');
  const erase = await svc.request({
    method: 'POST',
    url: `/api/notifications/crm/contacts/${contact.id}/erase`,
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(erase.statusCode, 200, erase.body);
  const account = json(await get('/api/notifications/crm/accounts')).accounts.find((a: any) => a.id === contact.account_id);
  assert.equal(account.name, 'Lima Lines');
  assert.match(account.notes, /\nMessage: Please ask for \[erased\] on \[erased\] or \[erased\]$/);
  const log = (await get('/api/hardware/admin/audit-log?limit=200')).body.toLowerCase();
  for (const v of ['lena', '900321']) assert.ok(!log.includes(v), `audit log holds ${v}`);
  // The same person sending the form again comes in opted out.
  assert.equal((await post({ ...lead, email: 'LENA@lima.example' }, '198.51.100.41')).statusCode, 202);
  const again = json(await get('/api/notifications/crm/contacts')).contacts.find((c: any) => c.name === 'Lena Lima');
  assert.equal(again.opted_out, true);
});
