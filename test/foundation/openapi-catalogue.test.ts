// The served OpenAPI document against spec/operations.json, and the route-table guard: every
// declared operation is complete. New operations are picked up automatically.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { COMMANDS } from '../../src/modules/hub/services/commands.ts';

// The catalogue is kept in the repository (spec/operations.json), so a fresh clone tests alone; it
// is a copy of the contract's, and a test below checks the two agree wherever ../shared is present.
const specPath = fileURLToPath(new URL('../../spec/operations.json', import.meta.url));
const sharedPath = fileURLToPath(new URL('../../../shared/spec/operations.json', import.meta.url));
const unbuiltPath = fileURLToPath(new URL('./unbuilt-operations.json', import.meta.url));
const catalogue = JSON.parse(readFileSync(specPath, 'utf8')) as {
  operations: { method: string; path: string; status: string; access: string; module?: string; audience?: string; sandbox?: boolean }[];
  not_served: { method: string; path: string }[];
};

const unbuilt = new Set<string>((JSON.parse(readFileSync(unbuiltPath, 'utf8')) as { operations: string[] }).operations);

/** Operations we serve that the catalogue does not list, each with the reason it exists. */
const EXTENSIONS: Record<string, string> = {
  'POST /api/auth/invitations': 'an administrator invites a person (decision 0023); the catalogue has no way to add a user',
  'GET /api/auth/invitations': 'lists open invitations (decision 0023)',
  'DELETE /api/auth/invitations/{invitation_id}': 'withdraws an invitation (decision 0023)',
  'POST /api/auth/invitations/accept': 'the invitee sets a password (decision 0023)',
  'GET /api/esg/keys': 'publishes the energy-receipt verification keys (decision 0107)',
  'POST /api/auth/sso/idp/providers/{organisation_id}/approve':
    'a platform administrator gives a contested SSO tenant to the organisation that controls it (decision 0029)',
  'POST /api/devtools/webhooks/{endpoint_id}/replay': 'replays retained events (concepts.md 6.5: "events retained 30 days for replay")',
  'GET /api/optimiser/forecasting/sites/{site_id}/backtest/{backtest_id}':
    'progress and result of a forecast backtest longer than 28 days, run as a background job (issue 19, decision 0196)',
  'GET /api/hardware/device-credentials': "lists the organisation's device credentials (issue 40, decision 0375)",
  'POST /api/hardware/device-credentials': "issues a device credential for one site, beside the spec's user sign-in for gateways (issue 40, decision 0375)",
  'POST /api/hardware/device-credentials/{credential_id}/rotate': 'rotates a device credential with a bounded overlap (issue 40, decision 0375)',
  'POST /api/hardware/device-credentials/{credential_id}/revoke': 'revokes a device credential at once (issue 40, decision 0375)',
  'GET /api/live/events': "the organisation's live telemetry and alerts as server-sent events, for the console and integrators (issue 24, decision 0231)",
  'GET /api/csms/api/hub/id-tokens': "lists the organisation's id tokens chargers are answered from (issue 39, decision 0410)",
  'POST /api/csms/api/hub/id-tokens': 'adds an id token (issue 39, decision 0410)',
  'GET /api/csms/api/hub/id-tokens/{id_token}': 'reads an id token (issue 39, decision 0410)',
  'PATCH /api/csms/api/hub/id-tokens/{id_token}': 'blocks, expires or regroups an id token (issue 39, decision 0410)',
  'DELETE /api/csms/api/hub/id-tokens/{id_token}': 'removes an id token (issue 39, decision 0410)',
  'GET /api/csms/api/hub/charge-points/{charge_point_id}/commands': "lists a charger's commands and their results (issue 39, decision 0411)",
  'GET /api/csms/api/hub/commands/{command_id}': 'reads one command and its result (issue 39, decision 0411)',
  'PUT /api/csms/api/hub/charge-points/{charge_point_id}/security-profile':
    'sets the OCPP security profile a charger must connect at (issue 39, decision 0430)',
  'GET /api/csms/api/hub/charger-ca': "reads the organisation's charger CA certificates for security profile 3 (issue 39, decision 0431)",
  'PUT /api/csms/api/hub/charger-ca': "sets the organisation's charger CA certificates for security profile 3 (issue 39, decision 0431)",
  'DELETE /api/csms/api/hub/charger-ca': "removes the organisation's charger CA certificates (issue 39, decision 0431)",
  ...Object.fromEntries(
    COMMANDS.map((e) => [`POST /api/csms/api/hub/charge-points/{charge_point_id}/commands/${e.name}`, `${e.summary.toLowerCase()} (issue 39, decision 0411)`]),
  ),
};

let svc: TestService;
let doc: any;
before(async () => {
  svc = await startTestService();
  const res = await svc.request({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = json(res);
});
after(() => svc.stop());

const SECURITY: Record<string, string> = { public: 'public', 'api-key': 'apiKey', bearer: 'bearerAuth' };

test('the document is OpenAPI 3.1 with the contract version', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '2026-10-15');
});

test('every catalogued operation that is declared has the catalogue status, access, path and labels', () => {
  let declared = 0;
  for (const c of catalogue.operations) {
    const op = doc.paths[c.path]?.[c.method.toLowerCase()];
    if (!op) continue;
    declared++;
    const where = `${c.method} ${c.path}`;
    assert.equal(op['x-platform-status'], c.status, `${where}: status`);
    const schemes = (op.security as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
    if (c.access === 'public') assert.deepEqual(schemes, [], `${where}: public`);
    else assert.ok(schemes.includes(SECURITY[c.access]), `${where}: access ${c.access}, declared ${schemes}`);
    if (c.access === 'bearer') assert.ok(!schemes.includes('apiKey'), `${where}: bearer-only must not accept keys`);
    assert.equal(op['x-platform-module'], c.module, `${where}: module`);
    assert.equal(op['x-platform-audience'], c.audience, `${where}: audience`);
    assert.equal(op['x-platform-sandbox'], c.sandbox, `${where}: sandbox`);
  }
  console.log(`catalogue: ${declared} of ${catalogue.operations.length} catalogued operations declared`);
  assert.ok(declared >= 3);
});

test("the repository copy of the catalogue is the contract's", { skip: !existsSync(sharedPath) && 'no ../shared beside this checkout' }, () => {
  assert.deepEqual(JSON.parse(readFileSync(sharedPath, 'utf8')), catalogue);
});

test('both directions: every catalogued operation is served or listed as unbuilt, every served one is catalogued or an extension', () => {
  const served = new Set<string>();
  for (const [path, methods] of Object.entries<any>(doc.paths)) for (const m of Object.keys(methods)) served.add(`${m.toUpperCase()} ${path}`);
  const catalogued = new Set(catalogue.operations.map((c) => `${c.method} ${c.path}`));
  const missing = [...catalogued].filter((k) => !served.has(k) && !unbuilt.has(k));
  assert.deepEqual(missing, [], 'catalogued, not served, and not listed in unbuilt-operations.json');
  const stale = [...unbuilt].filter((k) => served.has(k));
  assert.deepEqual(stale, [], 'served now: remove these lines from unbuilt-operations.json');
  const unknown = [...unbuilt].filter((k) => !catalogued.has(k));
  assert.deepEqual(unknown, [], 'listed as unbuilt but not catalogued');
  const uncatalogued = [...served].filter((k) => !catalogued.has(k) && !(k in EXTENSIONS));
  assert.deepEqual(uncatalogued, [], 'served but neither catalogued nor listed as an extension');
  const gone = Object.keys(EXTENSIONS).filter((k) => !served.has(k));
  assert.deepEqual(gone, [], 'listed as extensions but not served');
  console.log(`catalogue: ${catalogued.size - unbuilt.size} of ${catalogued.size} served, ${Object.keys(EXTENSIONS).length} extensions`);
});

test('route-table guard: every operation is complete and operationIds are unique', () => {
  const ids = new Set<string>();
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z0-9]+$/, `${where}: operationId`);
      assert.ok(!ids.has(op.operationId), `${where}: duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      assert.ok(op.summary, `${where}: summary`);
      assert.ok(op.tags?.length, `${where}: tags`);
      assert.ok(['live', 'awaiting-migration', 'partner-gated', 'demo-realm'].includes(op['x-platform-status']), `${where}: status label`);
      assert.ok(
        Object.keys(op.responses).some((s) => Number(s) < 400),
        `${where}: a success response schema`,
      );
      assert.ok(Array.isArray(op.security), `${where}: security`);
      if (['calculated', 'forecast', 'simulated'].includes(op['x-platform-data-basis'])) {
        assert.ok(op['x-platform-method'], `${where}: x-platform-method for ${op['x-platform-data-basis']}`);
      }
      for (const p of path.match(/\{[^}]+\}/g) ?? []) {
        const name = p.slice(1, -1);
        assert.ok(
          op.parameters.some((x: any) => x.in === 'path' && x.name === name),
          `${where}: path parameter ${name}`,
        );
      }
    }
  }
});

test('a generator can use it: described tags, contact and licence, every operation described, 413/503 and the platform headers declared', () => {
  assert.ok(doc.info.contact?.url && doc.info.contact?.name);
  assert.ok(doc.info.license?.name);
  const described = new Map<string, string>(doc.tags.map((t: { name: string; description: string }) => [t.name, t.description]));
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(op.description?.length > 10, `${where}: description`);
      for (const t of op.tags) assert.ok(described.get(t), `${where}: tag ${t} has a description at the top level`);
      assert.ok(op.responses['503']?.headers?.['Retry-After'], `${where}: 503 with Retry-After`);
      assert.ok(op.responses['429']?.headers?.['Retry-After'], `${where}: 429 with Retry-After`);
      if (op.requestBody) assert.ok(op.responses['413'], `${where}: 413 for an over-size body`);
      const devtools = path.startsWith('/api/devtools/');
      for (const [code, r] of Object.entries<any>(op.responses)) {
        if (devtools) assert.ok(r.headers?.['X-Request-Id'], `${where} ${code}: X-Request-Id`);
        if (op.security.some((s: object) => 'apiKey' in s) && (Number(code) < 400 || code === '429')) {
          for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'])
            assert.ok(r.headers?.[h], `${where} ${code}: ${h}`);
        }
      }
    }
  }
  assert.deepEqual(Object.keys(doc.paths['/api/telemetry/metrics'].get.responses['200'].content), ['text/plain; version=0.0.4; charset=utf-8']);
  // The main resources are named components, each referred to where it is used.
  for (const name of [
    'Asset',
    'AssetDetail',
    'TwinAsset',
    'IngestionResult',
    'TelemetryRecord',
    'TelemetryReading',
    'ApiKey',
    'WebhookEndpoint',
    'WebhookDelivery',
    'Alert',
    'PartnerDevice',
    'SettlementReceipt',
  ]) {
    assert.equal(doc.components.schemas[name]?.type, 'object', `components.schemas.${name}`);
  }
  const text = JSON.stringify(doc.paths);
  assert.ok(!text.includes('x-component'), 'no marker left in the document');
  assert.match(JSON.stringify(doc.paths['/api/twin/registry/assets/{asset_id}'].get.responses['200']), /#\/components\/schemas\/AssetDetail/);
  assert.match(JSON.stringify(doc.paths['/api/telemetry/ingest'].post.responses['200']), /#\/components\/schemas\/IngestionResult/);
  // The ingest body: a record or an array of records, each the named TelemetryRecordIn.
  const ingestBody = doc.paths['/api/telemetry/ingest'].post.requestBody.content['application/json'].schema;
  assert.deepEqual(
    ingestBody.anyOf.map((s: any) => s.$ref ?? s.items?.$ref),
    ['#/components/schemas/TelemetryRecordIn', '#/components/schemas/TelemetryRecordIn'],
  );
  assert.equal(doc.components.schemas.TelemetryRecordIn.properties.power_kw.type, 'number');
  // The history metric is an enum.
  const metric = doc.paths['/api/telemetry/assets/{asset_type}/{asset_id}/history'].get.parameters.find((p: any) => p.name === 'metric');
  assert.ok(metric.schema.enum.includes('soc'), JSON.stringify(metric.schema));
  const sandboxTest = doc.paths['/api/devtools/partner/v1/sandbox/webhooks/test'].post;
  assert.deepEqual(sandboxTest.responses['202'].headers['Idempotent-Replayed'].schema, { type: 'string', enum: ['true'] });
});

test('every error type URI resolves to its entry on the served error page', async () => {
  const page = await svc.request({ method: 'GET', url: '/docs/errors' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const anchors = new Set([...page.body.matchAll(/<dt id="([a-z_0-9]+)">/g)].map((m) => m[1]));
  for (const code of [
    'not_found',
    'validation_error',
    'invalid_token',
    'insufficient_scope',
    'rate_limited',
    'idempotency_conflict',
    'api_key_not_active',
    'asset_exists',
    'account_locked',
  ]) {
    assert.ok(anchors.has(code), `${code} is on the page`);
  }
  // A real refusal on the developer-tools surface: its type points at an entry that exists.
  const res = await svc.request({ method: 'GET', url: '/api/devtools/apikeys', headers: { authorization: 'Bearer not-a-token' } });
  assert.equal(res.statusCode, 401);
  const body = json(res);
  const type = new URL(body.type);
  assert.equal(type.pathname, '/docs/errors');
  assert.equal(type.hash, `#${body.code}`);
  assert.ok(anchors.has(body.code), `${body.code} is on the page`);
});

test('/docs does not ask browsers to upgrade to HTTPS (it works over plain HTTP under a host name)', async () => {
  const res = await svc.request({ method: 'GET', url: '/docs/' });
  assert.equal(res.statusCode, 200);
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/);
  assert.doesNotMatch(csp, /upgrade-insecure-requests/);
});

test('the withdrawn and unbuilt operations answer 404', async () => {
  for (const n of catalogue.not_served) {
    const url = n.path.replace(/\{[^}]+\}/g, 'x1');
    const res = await svc.request({ method: n.method as 'GET', url, payload: n.method === 'POST' ? {} : undefined });
    assert.equal(res.statusCode, 404, `${n.method} ${n.path}`);
    assert.deepEqual(json(res), { detail: 'Not Found' });
  }
});

test('the separately described /v1 surface is not served', async () => {
  for (const [method, url] of [
    ['GET', '/v1/sites'],
    ['GET', '/v1/assets/a1/telemetry'],
    ['POST', '/v1/dispatch/events'],
    ['GET', '/v1/receipts/r1/verify'],
  ] as const) {
    const res = await svc.request({ method, url });
    assertRefused(res, 404, 'Not Found', url);
  }
});

test('/docs serves an interactive reference with its own assets (no CDN)', async () => {
  const res = await svc.request({ method: 'GET', url: '/docs/' });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /swagger-ui/i);
  assert.doesNotMatch(res.body, /(src|href)="https?:\/\//, 'assets are served locally');
  const js = await svc.request({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
  assert.equal(js.statusCode, 200);
  const spec = await svc.request({ method: 'GET', url: '/docs/json' });
  assert.deepEqual(json(spec).paths, doc.paths);
});

test('every request validator and response serializer compiles (they compile on first use; the entry point warms the rest)', async () => {
  const fresh = await startTestService();
  try {
    // One request compiles the validators and serializer of the route it takes, and only those.
    const health = await fresh.request({ method: 'GET', url: '/api/telemetry/healthz' });
    assert.equal(health.statusCode, 200, health.body);
    const compiled = fresh.warmSchemas();
    const withSchemas = fresh.operations.filter(({ schema: s }) => s.body || s.query || s.params || s.headers || Object.keys(s.response).length > 0);
    assert.ok(compiled >= withSchemas.length, `compiled ${compiled} schemas for ${withSchemas.length} operations with schemas`);
    assert.equal(fresh.warmSchemas(), 0, 'a second warm-up finds nothing left to compile');
    // Still validating after the warm-up: a bad query is the spec's 422.
    const bad = await fresh.request({
      method: 'GET',
      url: '/api/telemetry/assets/solar/inv-1/history?range=fortnightly',
      headers: { authorization: `Bearer ${await fresh.token({ orgId: 'org-warm' })}` },
    });
    assertRefused(bad, 422, { fields: ['query.range'] });
  } finally {
    await fresh.stop();
  }
});
