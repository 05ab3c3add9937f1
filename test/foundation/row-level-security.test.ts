// Defence in depth: a query that forgot its organisation filter, run in B's request scope, sees
// none of A's rows and cannot write rows for A (PostgreSQL row-level security, on both stores).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { runInOrgScope } from '../../src/infra/db/scope.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
  const db = svc.deps.db;
  for (const org of ['org-a', 'org-b']) {
    await db.query(`insert into audit_log (org_id, actor_type, action, created_at) values ($1, 'system', 'test.seed', now())`, [org]);
    await db.query(`insert into telemetry (org_id, asset_id, ts, received_at, raw) values ($1, 'meter-1', now(), now(), '{}')`, [org]);
  }
});
after(() => svc.stop());

test("an unfiltered query in B's scope returns only B's rows", async () => {
  const db = svc.deps.db;
  const audit = await runInOrgScope('org-b', () => db.query<{ org_id: string }>('select org_id from audit_log'));
  assert.deepEqual(
    audit.rows.map((r) => r.org_id),
    ['org-b'],
  );
  const telemetry = await runInOrgScope('org-b', () => db.query<{ org_id: string }>('select org_id from telemetry'));
  assert.deepEqual(
    telemetry.rows.map((r) => r.org_id),
    ['org-b'],
  );
  const none = await runInOrgScope('org-c', () => db.query('select * from telemetry'));
  assert.equal(none.rows.length, 0);
});

test('inside a transaction too, and a write for another organisation is refused', async () => {
  const db = svc.deps.db;
  const n = await runInOrgScope('org-b', () => db.tx(async (q) => (await q.query<{ n: number }>('select count(*)::int as n from audit_log')).rows[0].n));
  assert.equal(n, 1);
  await assert.rejects(
    runInOrgScope('org-b', () => db.query(`insert into audit_log (org_id, actor_type, action, created_at) values ('org-a', 'system', 'x', now())`)),
    /row-level security/,
  );
});

test('outside any scope (jobs, provisioning) every row is visible', async () => {
  const all = await svc.deps.db.query('select org_id from audit_log where action = $1', ['test.seed']);
  assert.equal(all.rowCount, 2);
});

/**
 * Tables with org_id that scoped requests must read across organisations, with the reason. Every
 * other table with org_id calls enable_org_isolation() in the migration that makes it.
 */
const RLS_EXEMPT: Record<string, string> = {
  memberships: 'a signed-in user lists all of their own organisations (/api/auth/me)',
};

test('every table with an org_id column has the policy, except the documented exemptions', async () => {
  const { rows } = await svc.deps.db.query<{ table_name: string; rls: boolean }>(
    `select c.relname as table_name, c.relrowsecurity as rls
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
        and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'org_id' and not a.attisdropped)`,
  );
  assert.ok(rows.length >= 2);
  for (const r of rows) {
    if (r.table_name in RLS_EXEMPT) {
      assert.equal(r.rls, false, `${r.table_name} is exempt`);
      continue;
    }
    assert.equal(r.rls, true, `${r.table_name} has row-level security: call enable_org_isolation('${r.table_name}') in its migration`);
    const policy = await svc.deps.db.query(
      `select 1 from pg_policies where schemaname = current_schema() and tablename = $1 and policyname = 'org_isolation'`,
      [r.table_name],
    );
    assert.equal(policy.rowCount, 1, `${r.table_name} has the org_isolation policy`);
  }
});
