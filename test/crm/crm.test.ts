// CRM through HTTP on a real store: every operation's success and refusals (role, other
// organisation, module off, bad input), the deal stage machine, the weighted forecast, opt-out that
// nothing re-subscribes, erasure searched for in every table afterwards, and retention with the
// service clock moved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, startTestService, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Role } from '../../src/platform/roles.ts';

const B = '/api/notifications/crm';
const NOW = '2026-11-24T09:00:00.000Z';
const ORG = 'crm-org';
const OTHER = 'crm-other';
const OFF = 'crm-off';

let svc: TestService;
let clock: ManualClock;
let admin: string;
let viewer: string;
let analyst: string;
let other: string;
let off: string;

const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const call = (token: string, method: string, url: string, payload?: unknown) =>
  svc.request({ method: method as 'GET', url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });
async function ok(token: string, method: string, url: string, payload?: unknown, status = 200) {
  const res = await call(token, method, url, payload);
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
  return res.body ? json(res) : null;
}
const tok = (orgId: string, roles: Role[]) => svc.token({ orgId, roles, expiresIn: '3650d' });

before(async () => {
  clock = new ManualClock(NOW);
  svc = await startTestService({ clock });
  await svc.createOrg(ORG, ['crm']);
  await svc.createOrg(OTHER, ['crm']);
  await svc.createOrg(OFF);
  admin = await tok(ORG, ['ORG_ADMIN']);
  viewer = await tok(ORG, ['VIEWER']);
  analyst = await tok(ORG, ['ANALYST']);
  other = await tok(OTHER, ['ORG_ADMIN']);
  off = await tok(OFF, ['ORG_ADMIN']);
});
after(() => svc.stop());

const EVERY: [string, string, unknown?][] = [
  ['GET', `${B}/settings`],
  ['PUT', `${B}/settings`, { stages: [{ name: 'lead', probability: 10 }], retention_days: 365, templates: [] }],
  ['GET', `${B}/forecast`],
  ['GET', `${B}/accounts`],
  ['POST', `${B}/accounts`, { name: 'x' }],
  ['GET', `${B}/accounts/a`],
  ['PATCH', `${B}/accounts/a`, { name: 'x' }],
  ['DELETE', `${B}/accounts/a`],
  ['GET', `${B}/contacts`],
  ['POST', `${B}/contacts`, { name: 'x' }],
  ['GET', `${B}/contacts/c`],
  ['PATCH', `${B}/contacts/c`, { name: 'x' }],
  ['POST', `${B}/contacts/c/opt-out`],
  ['POST', `${B}/contacts/c/erase`],
  ['POST', `${B}/contacts/c/outreach-draft`, { template: 'introduction' }],
  ['GET', `${B}/deals`],
  ['POST', `${B}/deals`, { account_id: 'a', title: 'x', value: '1' }],
  ['GET', `${B}/deals/d`],
  ['PATCH', `${B}/deals/d`, { title: 'x' }],
  ['DELETE', `${B}/deals/d`],
  ['POST', `${B}/deals/d/stage`, { stage: 'won' }],
  ['GET', `${B}/activities`],
  ['POST', `${B}/activities`, { kind: 'note', subject: 'x', account_id: 'a' }],
  ['DELETE', `${B}/activities/x`],
  ['GET', `${B}/tasks`],
  ['POST', `${B}/tasks`, { title: 'x', due_at: NOW }],
  ['GET', `${B}/tasks/due`],
  ['PATCH', `${B}/tasks/t`, { done: true }],
  ['POST', `${B}/import/tracker`, { csv: 'company\nx\n' }],
  ['GET', `${B}/retention/preview`],
  ['POST', `${B}/retention/run`],
];

test('every CRM operation: module off answers 403 Module not enabled: crm; no token 401', async () => {
  for (const [method, url, body] of EVERY) {
    assertRefused(await call(off, method, url, body), 403, 'Module not enabled: crm');
  }
  for (const [method, url, body] of EVERY.slice(0, 3)) {
    const anon = await svc.request({ method: method as 'GET', url, ...(body !== undefined && { payload: body as object }) });
    assert.equal(anon.statusCode, 401, `${method} ${url}`);
  }
});

test('writes need a writing role; settings, erasure, deletes and retention need ORG_ADMIN or OPERATOR', async () => {
  for (const [method, url, body] of EVERY) {
    if (method === 'GET') continue;
    assertRefused(await call(viewer, method, url, body), 403, 'Insufficient permissions');
  }
  for (const [method, url, body] of EVERY.filter(
    ([m, u]) => m === 'PUT' || (m === 'DELETE' && !u.includes('activities')) || u.endsWith('/erase') || u.endsWith('/retention/run'),
  )) {
    assertRefused(await call(analyst, method, url, body), 403, 'Insufficient permissions');
  }
});

test('settings: defaults, replace, validation, a stage in use cannot be removed', async () => {
  const d = await ok(viewer, 'GET', `${B}/settings`);
  assert.equal(d.updated_at, null);
  assert.deepEqual(
    d.stages.map((s: any) => s.name),
    ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'],
  );
  const body = {
    stages: [
      { name: 'lead', probability: 10 },
      { name: 'survey', probability: 40 },
      { name: 'proposal', probability: 60 },
    ],
    retention_days: 365,
    templates: [{ name: 'introduction', subject: 'Depot study for {{account}}', body: 'Dear {{first_name}}, about {{deal}}.' }],
  };
  const s = await ok(admin, 'PUT', `${B}/settings`, body);
  assert.deepEqual(
    s.stages.map((x: any) => [x.name, x.probability, x.final]),
    [
      ['lead', 10, false],
      ['survey', 40, false],
      ['proposal', 60, false],
      ['won', 100, true],
      ['lost', 0, true],
    ],
  );
  assert.equal(s.updated_at, NOW);
  assert.deepEqual((await ok(viewer, 'GET', `${B}/settings`)).retention_days, 365);
  assertRefused(await call(admin, 'PUT', `${B}/settings`, { ...body, stages: [{ name: 'won', probability: 1 }] }), 422, { fields: ['body.stages.0.name'] });
  assertRefused(await call(admin, 'PUT', `${B}/settings`, { ...body, retention_days: 5 }), 422, { fields: ['body.retention_days'] });
  // The other organisation still has the defaults.
  assert.equal((await ok(other, 'GET', `${B}/settings`)).updated_at, null);
  // A deal in 'survey' keeps the stage.
  const acc = await ok(admin, 'POST', `${B}/accounts`, { name: 'Stage Holder Ltd' }, 201);
  const deal = await ok(admin, 'POST', `${B}/deals`, { account_id: acc.id, title: 'Hold', value: '1.00', stage: 'survey' }, 201);
  assertRefused(
    await call(admin, 'PUT', `${B}/settings`, { ...body, stages: [{ name: 'lead', probability: 10 }] }),
    409,
    'Deals are still in stage(s) survey; move them before removing the stage',
  );
  await ok(admin, 'DELETE', `${B}/deals/${deal.id}`, undefined, 204);
  await ok(admin, 'DELETE', `${B}/accounts/${acc.id}`, undefined, 204);
});

test('accounts: create, list with filter and paging, read, patch, delete; other organisation 404', async () => {
  const a1 = await ok(analyst, 'POST', `${B}/accounts`, { name: 'Acme Logistics', domain: 'acme.example', notes: 'Depot in Leeds' }, 201);
  clock.advance(1000);
  assert.equal(a1.kind, 'prospect');
  const a2 = await ok(analyst, 'POST', `${B}/accounts`, { name: 'Beta Buses', kind: 'customer' }, 201);
  const p1 = await ok(viewer, 'GET', `${B}/accounts?limit=1`);
  assert.equal(p1.accounts[0].id, a2.id);
  assert.equal(p1.has_more, true);
  const p2 = await ok(viewer, 'GET', `${B}/accounts?limit=1&cursor=${encodeURIComponent(p1.next_cursor)}`);
  assert.equal(p2.accounts[0].id, a1.id);
  assert.deepEqual(
    (await ok(viewer, 'GET', `${B}/accounts?kind=customer`)).accounts.map((a: any) => a.id),
    [a2.id],
  );
  assert.equal((await ok(viewer, 'GET', `${B}/accounts/${a1.id}`)).domain, 'acme.example');
  assert.equal((await ok(analyst, 'PATCH', `${B}/accounts/${a1.id}`, { kind: 'customer' })).kind, 'customer');
  assertRefused(await call(other, 'GET', `${B}/accounts/${a1.id}`), 404, 'Account not found');
  assertRefused(await call(other, 'PATCH', `${B}/accounts/${a1.id}`, { name: 'x' }), 404, 'Account not found');
  assertRefused(await call(other, 'DELETE', `${B}/accounts/${a1.id}`), 404, 'Account not found');
  assertRefused(await call(analyst, 'POST', `${B}/accounts`, { name: '' }), 422, { fields: ['body.name'] });
  assertRefused(await call(analyst, 'PATCH', `${B}/accounts/${a1.id}`, {}), 422, { fields: ['body'] });
  assertRefused(await call(viewer, 'GET', `${B}/accounts?cursor=forged`), 400, 'invalid_cursor');
  await ok(analyst, 'POST', `${B}/contacts`, { name: 'Ann Holder', account_id: a2.id }, 201);
  assertRefused(await call(admin, 'DELETE', `${B}/accounts/${a2.id}`), 409, 'Account has 1 contact(s) and 0 deal(s); delete or move them first');
  await ok(admin, 'DELETE', `${B}/accounts/${a1.id}`, undefined, 204);
  assertRefused(await call(viewer, 'GET', `${B}/accounts/${a1.id}`), 404, 'Account not found');
});

test('deals: stage machine with moves recorded, patch, forecast weighted in exact decimals', async () => {
  const acc = await ok(admin, 'POST', `${B}/accounts`, { name: 'Gamma Fleet' }, 201);
  const d1 = await ok(analyst, 'POST', `${B}/deals`, { account_id: acc.id, title: 'Depot charging', value: '100000.01', expected_close: '2027-01-15' }, 201);
  assert.equal(d1.stage, 'lead');
  assert.deepEqual(
    d1.moves.map((m: any) => [m.from, m.to]),
    [[null, 'lead']],
  );
  const d2 = await ok(
    analyst,
    'POST',
    `${B}/deals`,
    { account_id: acc.id, title: 'Solar', value: '0.05', stage: 'proposal', expected_close: '2027-01-31' },
    201,
  );
  await ok(analyst, 'POST', `${B}/deals`, { account_id: acc.id, title: 'Batteries', value: '2000', currency: 'EUR' }, 201);
  const moved = await ok(analyst, 'POST', `${B}/deals/${d1.id}/stage`, { stage: 'survey', reason: 'site visit booked' });
  assert.deepEqual(
    moved.moves.map((m: any) => [m.from, m.to, m.reason]),
    [
      [null, 'lead', null],
      ['lead', 'survey', 'site visit booked'],
    ],
  );
  assertRefused(await call(analyst, 'POST', `${B}/deals/${d1.id}/stage`, { stage: 'survey' }), 409, 'Deal is already in stage survey');
  assertRefused(await call(analyst, 'POST', `${B}/deals/${d1.id}/stage`, { stage: 'nowhere' }), 422, { fields: ['body.stage'] });
  assertRefused(await call(other, 'POST', `${B}/deals/${d1.id}/stage`, { stage: 'won' }), 404, 'Deal not found');
  assertRefused(await call(analyst, 'POST', `${B}/deals`, { account_id: acc.id, title: 'x', value: '1', stage: 'won' }), 422, { fields: ['body.stage'] });
  assertRefused(await call(analyst, 'POST', `${B}/deals`, { account_id: acc.id, title: 'x', value: '1.234' }), 422, { fields: ['body.value'] });
  assertRefused(await call(other, 'POST', `${B}/deals`, { account_id: acc.id, title: 'x', value: '1' }), 422, { fields: ['body.account_id'] });
  const patched = await ok(analyst, 'PATCH', `${B}/deals/${d2.id}`, { value: '0.15' });
  assert.equal(patched.value, '0.15');
  assertRefused(await call(analyst, 'PATCH', `${B}/deals/${d2.id}`, { stage: 'won' }), 422, { fields: ['body.stage'] });
  assert.equal((await ok(viewer, 'GET', `${B}/deals/${d1.id}`)).stage, 'survey');
  assertRefused(await call(other, 'GET', `${B}/deals/${d1.id}`), 404, 'Deal not found');
  assert.deepEqual(
    (await ok(viewer, 'GET', `${B}/deals?stage=survey`)).deals.map((d: any) => d.id),
    [d1.id],
  );
  assert.equal((await ok(viewer, 'GET', `${B}/deals?account_id=${acc.id}`)).deals.length, 3);

  // survey 40%: 100000.01 -> 40000.004 -> 40000.00; proposal 60% of 0.15 -> 0.09; EUR lead 10% of 2000 -> 200.00.
  const res = await call(viewer, 'GET', `${B}/forecast`);
  assert.equal(res.headers['x-platform-data-basis'], 'calculated');
  const f = json(res);
  const jan = f.months.find((m: any) => m.month === '2027-01' && m.currency === 'GBP');
  assert.equal(jan.value, '100000.16');
  assert.equal(jan.weighted, '40000.09');
  assert.deepEqual(jan.stages.map((s: any) => [s.stage, s.weighted]).sort(), [
    ['proposal', '0.09'],
    ['survey', '40000.00'],
  ]);
  const eur = f.months.find((m: any) => m.currency === 'EUR');
  assert.deepEqual([eur.month, eur.weighted], ['unscheduled', '200.00']);
  // Won and lost leave the pipeline and are final.
  await ok(analyst, 'POST', `${B}/deals/${d2.id}/stage`, { stage: 'won' });
  assertRefused(await call(analyst, 'POST', `${B}/deals/${d2.id}/stage`, { stage: 'lead' }), 409, 'Deal is won; a closed deal cannot change stage');
  const after = (await ok(viewer, 'GET', `${B}/forecast`)).months.find((m: any) => m.month === '2027-01');
  assert.equal(after.weighted, '40000.00');
  assertRefused(await call(other, 'DELETE', `${B}/deals/${d1.id}`), 404, 'Deal not found');
  await ok(admin, 'DELETE', `${B}/deals/${d1.id}`, undefined, 204);
  assertRefused(await call(viewer, 'GET', `${B}/deals/${d1.id}`), 404, 'Deal not found');
});

test('activities and tasks: engagement, filters, due list with the clock, done', async () => {
  const acc = await ok(admin, 'POST', `${B}/accounts`, { name: 'Delta Depots' }, 201);
  const c = await ok(admin, 'POST', `${B}/contacts`, { name: 'Dan Delta', email: 'Dan@Delta.example', account_id: acc.id }, 201);
  assert.equal(c.email, 'dan@delta.example');
  const a = await ok(analyst, 'POST', `${B}/activities`, { kind: 'call', subject: 'Intro call', contact_id: c.id, occurred_at: '2026-11-23T10:00:00Z' }, 201);
  assert.equal((await ok(viewer, 'GET', `${B}/contacts/${c.id}`)).last_engaged_at, '2026-11-23T10:00:00.000Z');
  assert.deepEqual(
    (await ok(viewer, 'GET', `${B}/activities?contact_id=${c.id}`)).activities.map((x: any) => x.id),
    [a.id],
  );
  assertRefused(await call(analyst, 'POST', `${B}/activities`, { kind: 'call', subject: 'x' }), 422, { fields: ['body.account_id'] });
  assertRefused(await call(analyst, 'POST', `${B}/activities`, { kind: 'fax', subject: 'x', account_id: acc.id }), 422, { fields: ['body.kind'] });
  assertRefused(await call(other, 'DELETE', `${B}/activities/${a.id}`), 404, 'Activity not found');
  await ok(analyst, 'DELETE', `${B}/activities/${a.id}`, undefined, 204);
  assert.equal((await ok(viewer, 'GET', `${B}/activities?contact_id=${c.id}`)).activities.length, 0);

  const t1 = await ok(analyst, 'POST', `${B}/tasks`, { title: 'Send proposal', due_at: '2026-11-24T17:00:00Z', account_id: acc.id }, 201);
  const t2 = await ok(analyst, 'POST', `${B}/tasks`, { title: 'Chase survey', due_at: '2026-11-27T09:00:00Z', contact_id: c.id }, 201);
  assertRefused(await call(analyst, 'POST', `${B}/tasks`, { title: 'x', due_at: 'tomorrow' }), 422, { fields: ['body.due_at'] });
  // Instants and days a timestamp column cannot hold are field errors, not a 500: year 0 (also by
  // way of an offset) and a leap second.
  for (const due_at of ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '2026-12-31T23:59:60Z']) {
    assertRefused(await call(analyst, 'POST', `${B}/tasks`, { title: 'x', due_at }), 422, { fields: ['body.due_at'] }, due_at);
  }
  assertRefused(await call(analyst, 'POST', `${B}/deals`, { account_id: acc.id, title: 'x', value: '1.00', expected_close: '0000-01-01' }), 422, {
    fields: ['body.expected_close'],
  });
  assertRefused(await call(other, 'POST', `${B}/tasks`, { title: 'x', due_at: NOW, account_id: acc.id }), 422, { fields: ['body.account_id'] });
  let due = await ok(viewer, 'GET', `${B}/tasks/due`);
  assert.deepEqual(
    due.tasks.map((t: any) => [t.id, t.overdue]),
    [[t1.id, false]],
  );
  clock.advance(2 * 86_400_000);
  due = await ok(viewer, 'GET', `${B}/tasks/due?within_hours=24`);
  assert.deepEqual(
    due.tasks.map((t: any) => [t.id, t.overdue]),
    [
      [t1.id, true],
      [t2.id, false],
    ],
  );
  assertRefused(await call(viewer, 'GET', `${B}/tasks/due?within_hours=-1`), 422, { fields: ['query.within_hours'] });
  const done = await ok(analyst, 'PATCH', `${B}/tasks/${t1.id}`, { done: true });
  assert.equal(done.done, true);
  assert.deepEqual(
    (await ok(viewer, 'GET', `${B}/tasks/due`)).tasks.map((t: any) => t.id),
    [t2.id],
  );
  assert.deepEqual(
    (await ok(viewer, 'GET', `${B}/tasks?done=true`)).tasks.map((t: any) => t.id),
    [t1.id],
  );
  assertRefused(await call(other, 'PATCH', `${B}/tasks/${t2.id}`, { done: true }), 404, 'Task not found');
  assert.equal((await ok(other, 'GET', `${B}/tasks`)).tasks.length, 0);
  clock.set(NOW);
});

test('contacts: opt-out at once and for good; a suppressed address comes back opted out; drafts refused', async () => {
  const acc = await ok(admin, 'POST', `${B}/accounts`, { name: 'Echo Energy' }, 201);
  const c = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Eve Echo', email: 'eve@echo.example', phone: '020 7946 0001', account_id: acc.id }, 201);
  assert.equal(c.opted_out, false);
  const deal = await ok(analyst, 'POST', `${B}/deals`, { account_id: acc.id, title: 'Depot study', value: '5000' }, 201);
  const draft = await ok(analyst, 'POST', `${B}/contacts/${c.id}/outreach-draft`, { template: 'introduction', deal_id: deal.id });
  assert.deepEqual(draft, {
    contact_id: c.id,
    template: 'introduction',
    to: 'eve@echo.example',
    subject: 'Depot study for Echo Energy',
    body: 'Dear Eve, about Depot study.',
    sent: false,
  });
  assertRefused(await call(analyst, 'POST', `${B}/contacts/${c.id}/outreach-draft`, { template: 'nope' }), 422, { fields: ['body.template'] });
  assertRefused(await call(other, 'POST', `${B}/contacts/${c.id}/outreach-draft`, { template: 'introduction' }), 404, 'Contact not found');
  assertRefused(await call(other, 'POST', `${B}/contacts/${c.id}/opt-out`), 404, 'Contact not found');
  const out = await ok(analyst, 'POST', `${B}/contacts/${c.id}/opt-out`);
  assert.equal(out.opted_out, true);
  assert.equal((await ok(analyst, 'POST', `${B}/contacts/${c.id}/opt-out`)).opted_out_at, out.opted_out_at);
  assertRefused(
    await call(analyst, 'POST', `${B}/contacts/${c.id}/outreach-draft`, { template: 'introduction' }),
    409,
    'Contact has opted out of outreach; nothing can be drafted',
  );
  // The same address (other case) or number added again comes in opted out.
  const again = await ok(analyst, 'POST', `${B}/contacts`, { name: 'E. Echo', email: 'EVE@echo.example' }, 201);
  assert.equal(again.opted_out, true);
  const byPhone = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Someone', phone: '+44 20 7946 0001' }, 201);
  assert.equal(byPhone.opted_out, true);
  const fresh = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Fresh' }, 201);
  assert.equal((await ok(analyst, 'PATCH', `${B}/contacts/${fresh.id}`, { email: 'eve@echo.example' })).opted_out, true);
  // Suppression is per organisation.
  assert.equal((await ok(other, 'POST', `${B}/contacts`, { name: 'Eve', email: 'eve@echo.example' }, 201)).opted_out, false);
  assertRefused(await call(analyst, 'POST', `${B}/contacts`, { name: 'x', email: 'not-an-email' }), 422, { fields: ['body.email'] });
  assertRefused(await call(analyst, 'PATCH', `${B}/contacts/${c.id}`, { opted_out: false }), 422, { fields: ['body.opted_out'] });
  assertRefused(await call(other, 'GET', `${B}/contacts/${c.id}`), 404, 'Contact not found');
  assertRefused(await call(other, 'PATCH', `${B}/contacts/${c.id}`, { name: 'x' }), 404, 'Contact not found');
  assert.ok((await ok(viewer, 'GET', `${B}/contacts?account_id=${acc.id}`)).contacts.some((x: any) => x.id === c.id));
  const noMail = await ok(analyst, 'POST', `${B}/contacts`, { name: 'No Mail' }, 201);
  assertRefused(await call(analyst, 'POST', `${B}/contacts/${noMail.id}/outreach-draft`, { template: 'introduction' }), 409, 'Contact has no email address');
});

/** Every text-like column of every table in the public schema, searched for each term. */
async function findAnywhere(terms: string[]): Promise<string[]> {
  const db = svc.deps.db;
  const cols = await db.query<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.data_type in ('text', 'character varying', 'jsonb', 'json', 'character')`,
  );
  assert.ok(cols.rows.length > 20, 'columns found');
  const hits: string[] = [];
  for (const { table_name, column_name } of cols.rows) {
    for (const term of terms) {
      const r = await db.query(`select 1 from "${table_name}" where strpos(lower("${column_name}"::text), lower($1)) > 0 limit 1`, [term]);
      if (r.rows.length) hits.push(`${table_name}.${column_name}: ${term}`);
    }
  }
  return hits;
}

test('erase: the person is gone from every table but stays suppressed; answers what was erased', async () => {
  const acc = await ok(admin, 'POST', `${B}/accounts`, { name: 'Foxtrot Freight', notes: 'Met Zelda Quarrington at the expo' }, 201);
  const c = await ok(
    analyst,
    'POST',
    `${B}/contacts`,
    { name: 'Zelda Quarrington', email: 'zelda.q@foxtrot.example', phone: '07700 900123', job_title: 'Fleet manager', account_id: acc.id },
    201,
  );
  await ok(
    analyst,
    'POST',
    `${B}/activities`,
    { kind: 'email', subject: 'Re: Zelda Quarrington quote', body: 'Call her on 07700 900123', contact_id: c.id },
    201,
  );
  await ok(analyst, 'POST', `${B}/tasks`, { title: 'Email zelda.q@foxtrot.example', due_at: NOW, contact_id: c.id }, 201);
  await ok(analyst, 'POST', `${B}/deals`, { account_id: acc.id, contact_id: c.id, title: 'Zelda Quarrington depot', value: '10' }, 201);
  const terms = ['Zelda Quarrington', 'zelda.q@foxtrot.example', '07700 900123'];
  assert.ok(
    (await findAnywhere(terms)).some((h) => h.startsWith('audit_log.details')),
    'the audit log held the address before',
  );

  assertRefused(await call(other, 'POST', `${B}/contacts/${c.id}/erase`), 404, 'Contact not found');
  const res = await ok(admin, 'POST', `${B}/contacts/${c.id}/erase`);
  assert.equal(res.contact_id, c.id);
  assert.deepEqual(res.erased.contact_fields, ['name', 'email', 'phone', 'job_title']);
  assert.equal(res.erased.activity_bodies, 1);
  assert.ok(res.erased.text_mentions >= 4, `mentions ${res.erased.text_mentions}`);
  assert.ok(res.erased.audit_entries >= 1);
  assert.deepEqual(await findAnywhere(terms), []);
  const got = await ok(viewer, 'GET', `${B}/contacts/${c.id}`);
  assert.deepEqual([got.name, got.email, got.phone, got.erased, got.opted_out], [null, null, null, true, true]);
  assert.ok(!(await ok(viewer, 'GET', `${B}/contacts`)).contacts.some((x: any) => x.id === c.id));
  assert.ok((await ok(viewer, 'GET', `${B}/contacts?include_erased=true`)).contacts.some((x: any) => x.id === c.id));
  assertRefused(await call(admin, 'POST', `${B}/contacts/${c.id}/erase`), 409, 'Contact is erased');
  assertRefused(await call(analyst, 'POST', `${B}/contacts/${c.id}/outreach-draft`, { template: 'introduction' }), 409, 'Contact is erased');
  assertRefused(await call(analyst, 'PATCH', `${B}/contacts/${c.id}`, { name: 'Back' }), 409, 'Contact is erased');
  // Still suppressed: the address re-added comes in opted out.
  assert.equal((await ok(analyst, 'POST', `${B}/contacts`, { name: 'Z', email: 'Zelda.Q@foxtrot.example' }, 201)).opted_out, true);
  const log = await ok(admin, 'GET', `/api/hardware/admin/audit-log?action=crm.contact.erase`);
  assert.ok(JSON.stringify(log).includes(c.id));
});

test('retention: preview and run erase prospects with no engagement past the period', async () => {
  const t0 = '2027-03-01T09:00:00.000Z';
  clock.set(t0);
  const prospect = await ok(admin, 'POST', `${B}/accounts`, { name: 'Golf Garages' }, 201);
  const customer = await ok(admin, 'POST', `${B}/accounts`, { name: 'Hotel Haulage', kind: 'customer' }, 201);
  const idle = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Ida Idle', email: 'ida@golf.example', account_id: prospect.id }, 201);
  const engaged = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Ed Engaged', account_id: prospect.id }, 201);
  const cust = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Cat Customer', account_id: customer.id }, 201);
  clock.set('2028-02-01T09:00:00.000Z');
  await ok(analyst, 'POST', `${B}/activities`, { kind: 'meeting', subject: 'Catch-up', contact_id: engaged.id }, 201);
  clock.set('2028-03-02T09:00:00.000Z'); // 367 days after t0; retention 365 days (settings test)
  const preview = await ok(viewer, 'GET', `${B}/retention/preview`);
  assert.equal(preview.retention_days, 365);
  const ids = preview.contacts.map((x: any) => x.contact_id);
  assert.ok(ids.includes(idle.id));
  assert.ok(!ids.includes(engaged.id));
  assert.ok(!ids.includes(cust.id));
  assert.equal((await ok(other, 'GET', `${B}/retention/preview`)).contacts.length, 0);
  const run = await ok(admin, 'POST', `${B}/retention/run`);
  assert.deepEqual(run.erased.map((e: any) => e.contact_id).sort(), [...ids].sort());
  assert.equal((await ok(viewer, 'GET', `${B}/contacts/${idle.id}`)).erased, true);
  assert.equal((await ok(viewer, 'GET', `${B}/contacts/${engaged.id}`)).erased, false);
  assert.equal((await ok(viewer, 'GET', `${B}/retention/preview`)).contacts.length, 0);
  assert.deepEqual(await findAnywhere(['ida@golf.example', 'Ida Idle']), []);
  const log = await ok(admin, 'GET', `/api/hardware/admin/audit-log?action=crm.retention.run`);
  assert.ok(JSON.stringify(log).includes(idle.id));
  clock.set(NOW);
});

test('import/tracker: maps lines to accounts, contacts and deals; errors by line; idempotent; no re-subscribing', async () => {
  const suppressedAcc = await ok(admin, 'POST', `${B}/accounts`, { name: 'India Imports' }, 201);
  const gone = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Ivy Gone', email: 'ivy@india.example', account_id: suppressedAcc.id }, 201);
  await ok(admin, 'POST', `${B}/contacts/${gone.id}/erase`);
  const csv = [
    'Company,Contact Name,Email,Phone,Deal Title,Deal Value,Stage,Expected Close',
    'Juliet Joinery,Jo Juliet,jo@juliet.example,0161 496 0000,"Depot, phase 1","12,500.50",lead,2027-02-10',
    'Juliet Joinery,Jim Juliet,,,,,,',
    'Kilo Kitchens,,,,Rooftop PV,not money,nowhere,2027-13-01',
    'India Imports,Ivy Again,IVY@india.example,,,,,',
    ',No Company,,,,,,',
  ].join('\r\n');
  const dry = await ok(analyst, 'POST', `${B}/import/tracker`, { csv, dry_run: true });
  assert.equal(dry.imported, 3);
  assert.deepEqual(dry.created, { accounts: 0, contacts: 0, deals: 0 });
  const first = await ok(analyst, 'POST', `${B}/import/tracker`, { csv });
  assert.equal(first.rows, 5);
  assert.deepEqual(first.created, { accounts: 1, contacts: 3, deals: 1 });
  assert.deepEqual(first.matched, { accounts: 2, contacts: 0, deals: 0 });
  assert.equal(first.suppressed_contacts, 1);
  assert.deepEqual(first.errors, [
    { line: 4, column: 'deal_value', message: 'a deal needs a value: a decimal with at most 2 places, e.g. 12500.00' },
    { line: 4, column: 'stage', message: 'unknown stage; the pipeline has: lead, survey, proposal, won, lost' },
    { line: 4, column: 'expected_close', message: 'a date, YYYY-MM-DD' },
    { line: 6, column: 'company', message: 'company is required' },
  ]);
  const deals = (await ok(viewer, 'GET', `${B}/deals?stage=lead`)).deals.filter((d: any) => d.title === 'Depot, phase 1');
  assert.deepEqual(
    deals.map((d: any) => [d.value, d.expected_close]),
    [['12500.50', '2027-02-10']],
  );
  const again = await ok(analyst, 'POST', `${B}/import/tracker`, { csv });
  assert.deepEqual(again.created, { accounts: 0, contacts: 0, deals: 0 });
  assert.deepEqual(again.matched, { accounts: 3, contacts: 3, deals: 1 });
  const ivy = (await ok(viewer, 'GET', `${B}/contacts?account_id=${suppressedAcc.id}`)).contacts.filter((c: any) => c.email === 'ivy@india.example');
  assert.ok(ivy.length === 1 && ivy[0].opted_out && ivy[0].name === 'Ivy Again', 'the erased address comes back opted out');
  assertRefused(await call(analyst, 'POST', `${B}/import/tracker`, { csv: 'company,colour\nx,red\n' }), 422, { fields: ['body.csv'] });
  const narrow = await call(analyst, 'POST', `${B}/import/tracker`, { csv: 'company,email\n\n"x\r\nand y",x@y.example\nz\n' });
  assertRefused(narrow, 422, { fields: ['body.csv'] });
  assert.equal(JSON.parse(narrow.body).detail[0].msg, 'Line 5: expected 2 columns, found 1');
  assertRefused(await call(analyst, 'POST', `${B}/import/tracker`, { csv: 'company\n"unclosed\n' }), 422, { fields: ['body.csv'] });
  // A day the calendar lacks is the line's error (the store's date column would refuse it: a 500).
  const feb30 = await ok(analyst, 'POST', `${B}/import/tracker`, {
    csv: 'company,deal_title,deal_value,expected_close\nLima Logistics,Canopy,100.00,2027-02-30\n',
  });
  assert.deepEqual([feb30.imported, feb30.errors], [0, [{ line: 2, column: 'expected_close', message: 'a date, YYYY-MM-DD' }]]);
  assert.equal(
    (await ok(other, 'GET', `${B}/accounts`)).accounts.some((a: any) => a.name === 'Juliet Joinery'),
    false,
  );
});

test('import/tracker: a file whose lines end in both CRLF and LF is read line by line', async () => {
  const csv = 'company,domain\r\nMike Mills,mike.example\nNovember Nets,november.example\r\nOscar Ovens,oscar.example\n';
  const dry = await ok(analyst, 'POST', `${B}/import/tracker`, { csv, dry_run: true });
  assert.deepEqual([dry.rows, dry.imported, dry.errors], [3, 3, []]);
});

// Erasure by normalised identity (issue 35, finding 6; decision 0295): every e-mail address,
// number and name the person ever held, in any case or national/international form, goes from
// the CRM's texts and the audit log; unrelated words ("Annual", "Joann", another number) stay.
test('erase matches a name as whole words: erasing "Ann" leaves "Annual Holdings" and "Joann"', async () => {
  const acc = await ok(admin, 'POST', `${B}/accounts`, { name: 'Annual Holdings', notes: 'Joann and ANN met; ann\u2019s depot' }, 201);
  const ann = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Ann', account_id: acc.id }, 201);
  const namesake = await ok(analyst, 'POST', `${B}/contacts`, { name: 'Ann Holder', account_id: acc.id }, 201);
  await ok(admin, 'POST', `${B}/contacts/${ann.id}/erase`);
  const a = await ok(viewer, 'GET', `${B}/accounts/${acc.id}`);
  assert.deepEqual([a.name, a.notes], ['Annual Holdings', 'Joann and [erased] met; [erased]\u2019s depot']);
  // Another contact of the same name is another person: the record keeps its name.
  assert.equal((await ok(viewer, 'GET', `${B}/contacts/${namesake.id}`)).name, 'Ann Holder');
});

test('erase by normalised identity: earlier values and other spellings go; unrelated words stay', async () => {
  const E = 'crm-erase';
  await svc.createOrg(E, ['crm']);
  const ea = await tok(E, ['ORG_ADMIN']);
  const notes = 'Joann runs the depot; ann said call ANN on 07700 900456 or (07700) 900-456; mail ANN.OLD@Annual.Example; not 07700 900457';
  const acc = await ok(ea, 'POST', `${B}/accounts`, { name: 'Annual Holdings', notes }, 201);
  const c = await ok(ea, 'POST', `${B}/contacts`, { name: 'Ann', email: 'Ann.Old@annual.example', phone: '07700 900456', account_id: acc.id }, 201);
  // She changes address, number and name: the earlier ones are still hers.
  await ok(ea, 'PATCH', `${B}/contacts/${c.id}`, { email: 'ann.new@annual.example', phone: '+44 7700 900999', name: 'Ann Lee' });
  const act = await ok(
    ea,
    'POST',
    `${B}/activities`,
    {
      kind: 'call',
      subject: 'Call with ANN LEE',
      body: 'Reached her at +44 (0)7700 900999, old number 0044 7700 900456; cc ann.new@ANNUAL.example',
      account_id: acc.id,
    },
    201,
  );
  const variants = 'tel:+44(0)7700900456, (+44) 7700 900999, 07700.900.456, 0044-7700-900-999, "Ann.New@Annual.Example".';
  const kept = 'PO 4477009004561, ann.new@annual.example.org, joann.old@annual.example, annie, Ann-Marie';
  const act2 = await ok(ea, 'POST', `${B}/activities`, { kind: 'note', subject: 'Numbers', body: `${variants} ${kept}`, account_id: acc.id }, 201);
  const deal = await ok(ea, 'POST', `${B}/deals`, { account_id: acc.id, title: 'Annual contract for Ann', value: '10' }, 201);
  await ok(ea, 'POST', `${B}/deals/${deal.id}/stage`, { stage: 'qualified', reason: 'agreed with ann lee' });
  const task = await ok(ea, 'POST', `${B}/tasks`, { title: 'Send ann.old@annual.example the Annual report', due_at: NOW, account_id: acc.id }, 201);
  const jo = await ok(
    ea,
    'POST',
    `${B}/contacts`,
    { name: 'Joann Annandale', email: 'joann@annual.example', job_title: 'Assistant to Ann Lee', account_id: acc.id },
    201,
  );

  await ok(ea, 'POST', `${B}/contacts/${c.id}/erase`);

  const a = await ok(ea, 'GET', `${B}/accounts/${acc.id}`);
  assert.equal(a.name, 'Annual Holdings');
  assert.equal(a.notes, 'Joann runs the depot; [erased] said call [erased] on [erased] or [erased]; mail [erased]; not 07700 900457');
  const acts = (await ok(ea, 'GET', `${B}/activities?account_id=${acc.id}`)).activities.find((x: any) => x.id === act.id);
  assert.deepEqual([acts.subject, acts.body], ['Call with [erased]', 'Reached her at [erased], old number [erased]; cc [erased]']);
  const body2 = (await ok(ea, 'GET', `${B}/activities?account_id=${acc.id}`)).activities.find((x: any) => x.id === act2.id).body;
  assert.equal(body2, `tel:[erased], [erased], [erased], [erased], "[erased]". ${kept}`);
  await ok(ea, 'DELETE', `${B}/activities/${act2.id}`, undefined, 204); // its kept texts contain the values searched for below
  const d = await ok(ea, 'GET', `${B}/deals/${deal.id}`);
  assert.deepEqual([d.title, d.moves.map((m: any) => m.reason)], ['Annual contract for [erased]', [null, 'agreed with [erased]']]);
  assert.equal((await ok(ea, 'GET', `${B}/tasks?account_id=${acc.id}`)).tasks.find((t: any) => t.id === task.id).title, 'Send [erased] the Annual report');
  const j = await ok(ea, 'GET', `${B}/contacts/${jo.id}`);
  assert.deepEqual([j.name, j.email, j.job_title], ['Joann Annandale', 'joann@annual.example', 'Assistant to [erased]']);

  // The audit log, read back through its API (page and CSV), holds none of her values.
  const page = (await call(ea, 'GET', '/api/hardware/admin/audit-log?limit=200')).body;
  const csv = (await call(ea, 'GET', '/api/hardware/admin/audit-log/export.csv')).body;
  for (const text of [page, csv]) {
    for (const v of ['ann.old@', 'ann.new@', '900456', '900-456', '900999']) assert.ok(!text.toLowerCase().includes(v), `audit log still holds ${v}`);
    assert.ok(!/(?<![\p{L}\p{N}])ann(?![\p{L}\p{N}])/iu.test(text), 'audit log still holds the name');
  }
  assert.ok(page.includes('crm.contact.erase') && page.includes('crm.contact.create'), 'the audit facts stay');
  assert.deepEqual(await findAnywhere(['ann.old@annual', 'ann.new@annual', '7700 900456', '7700900456', '900-456', '7700 900999']), []);

  // Every address and number she held stays suppressed, however it is written.
  for (const body of [{ email: 'ANN.OLD@annual.example' }, { phone: '+447700900456' }, { phone: '0044 7700 900999' }, { phone: '+44 (0)7700 900456' }]) {
    assert.equal((await ok(ea, 'POST', `${B}/contacts`, { name: 'Again', ...body }, 201)).opted_out, true, JSON.stringify(body));
  }
  assert.equal((await ok(ea, 'POST', `${B}/contacts`, { name: 'Other', phone: '07700 900457' }, 201)).opted_out, false);
});
