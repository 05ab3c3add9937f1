// T-19: function-level authorisation. For every operation in the served document and every role
// (plus no credential, an API key, a production organisation on demo-realm operations, a partner
// token on staff operations), the answer matches the declared policy: allowed callers are never
// refused for their role, refused callers get the spec's 401/403.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { fuzzEnv } from './helpers/world.ts';
import { ROLES, type Role } from '../src/platform/roles.ts';
import { EXPECTED_ROLE_CLASS, ROLE_CLASSES } from './helpers/role-table.ts';

let svc: TestService;
let doc: any;
const DEMO = 'demo-authz';
const PROD = 'prod-authz';
const tokens: Record<string, string> = {};

before(async () => {
  svc = await startTestService({ env: fuzzEnv() });
  doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  await svc.createOrg(DEMO, ['field', 'crm', 'ems/routing']);
  await svc.createOrg(PROD, []);
  for (const role of ROLES) {
    tokens[role] = await svc.token({ orgId: DEMO, roles: [role], userId: `u-${role}` });
    tokens[`prod-${role}`] = await svc.token({ orgId: PROD, roles: [role], userId: `p-${role}` });
  }
  tokens.staff = await svc.token({ orgId: DEMO, roles: ['VIEWER'], userId: 'u-staff', staff: true, admin: true });
});
after(() => svc?.stop());

async function call(method: string, path: string, authorization?: string) {
  const url = path.replace(/\{[^}]+\}/g, 'x1');
  const res = await svc.request({
    method: method.toUpperCase() as 'GET',
    url,
    headers: { ...(authorization && { authorization }), 'content-type': 'application/json' },
    payload: method === 'get' || method === 'delete' ? undefined : '{}',
  });
  let detail: unknown;
  try {
    detail = json(res).detail;
  } catch {
    detail = undefined;
  }
  return { status: res.statusCode, detail };
}

test('every operation answers each caller as its declared policy says', async () => {
  let cells = 0;
  const problems: string[] = [];
  const check = (cond: boolean, msg: string) => {
    if (!cond && problems.length < 40) problems.push(msg);
  };
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      // An event stream never ends on its own: test/console/console.test.ts reads it through a real socket.
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      const schemes = (op.security as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
      if (schemes.length === 0) continue; // public
      // Who may call it comes from the tests' own table; the declaration must agree with it.
      const cls = EXPECTED_ROLE_CLASS[where];
      const allowed: Role[] = cls ? [...ROLE_CLASSES[cls]] : [];
      if (schemes.includes('bearerAuth')) {
        check(cls !== undefined, `${where}: not in test-reliability/helpers/role-table.ts`);
        check(
          JSON.stringify([...(op['x-platform-roles'] ?? [])].sort()) === JSON.stringify([...allowed].sort()),
          `${where}: declares ${op['x-platform-roles']}, the table says ${cls} (${allowed})`,
        );
      }
      const staffOnly = op['x-platform-audience'] === 'platform-staff';
      const adminOnly = op['x-platform-admin-only'] === true;
      const demoOnly = op['x-platform-status'] === 'demo-realm';

      const anon = await call(method, path);
      cells++;
      check(
        (anon.status === 401 && anon.detail === 'Authorization header missing') || (anon.status === 401 && typeof anon.detail === 'string'),
        `${where}: no credential -> ${anon.status}`,
      );

      const key = await call(method, path, `Bearer ${svc.config.apiKeyPrefix}_live_00000000000000000000`);
      cells++;
      check(key.status === 401, `${where}: unknown API key -> ${key.status}`);

      for (const role of ROLES) {
        const r = await call(method, path, `Bearer ${tokens[role]}`);
        cells++;
        if (!schemes.includes('bearerAuth')) {
          check(r.status === 401, `${where}: bearer token on a key-only operation -> ${r.status}`);
        } else if (!allowed.includes(role)) {
          check(r.status === 403 && r.detail === 'Insufficient permissions', `${where}: ${role} not allowed -> ${r.status} ${JSON.stringify(r.detail)}`);
        } else if (staffOnly) {
          check(r.status === 403, `${where}: ${role} partner token on a staff operation -> ${r.status}`);
        } else if (adminOnly) {
          check(r.status === 403, `${where}: ${role} without platform admin -> ${r.status}`);
        } else {
          check(
            !(r.status === 403 && r.detail === 'Insufficient permissions') && r.status !== 401,
            `${where}: ${role} allowed but refused -> ${r.status} ${JSON.stringify(r.detail)}`,
          );
          check(r.status < 500 || r.status === 502 || r.status === 503, `${where}: ${role} -> ${r.status}`);
        }
        if (demoOnly && allowed.includes(role)) {
          const p = await call(method, path, `Bearer ${tokens[`prod-${role}`]}`);
          cells++;
          check(p.status === 403 && p.detail === 'Demo realm only', `${where}: production organisation on demo-realm -> ${p.status}`);
        }
        if (op['x-platform-module'] && allowed.includes(role)) {
          const p = await call(method, path, `Bearer ${tokens[`prod-${role}`]}`);
          cells++;
          check(
            p.status === 403 && p.detail === `Module not enabled: ${op['x-platform-module']}`,
            `${where}: organisation without module -> ${p.status} ${JSON.stringify(p.detail)}`,
          );
        }
      }
      if (staffOnly || adminOnly) {
        const s = await call(method, path, `Bearer ${tokens.staff}`);
        cells++;
        check(s.status !== 403 || s.detail === 'Insufficient permissions', `${where}: platform staff/admin refused -> ${s.status} ${JSON.stringify(s.detail)}`);
      }
    }
  }
  console.log(`authorisation matrix: ${cells} cells checked`);
  assert.deepEqual(problems, []);
});
