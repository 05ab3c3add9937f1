// Every 202 says where to follow what it queued (issue 42, friction): a `Location` header to the job,
// run or delivery log, declared once on the operation (`locates`) and filled from the answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { registerEndpoint } from '../devtools/helpers.ts';

/** 202s with nothing a caller can follow, and why. */
const EXEMPT: Record<string, string> = {
  requestCapacityCheck: 'a public form: the lead is written into the operator’s organisation, which the caller cannot read',
  sendSandboxWebhookTest: 'one request may queue deliveries to several endpoints: each endpoint’s delivery log shows them',
};

let svc: TestService;
const ORG = 'locations-org';
before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-10-15T12:00:00Z') });
  await svc.createOrg(ORG);
});
after(() => svc.stop());

test('every operation that answers 202 declares where its job is read (or is exempt with a reason), and the document says so', async () => {
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const missing: string[] = [];
  for (const op of svc.operations) {
    const answers202 = op.successStatus === 202 || op.schema.response?.[202] !== undefined;
    if (!answers202 || EXEMPT[op.operationId]) continue;
    if (!op.locates) {
      missing.push(op.operationId);
      continue;
    }
    const declared = doc.paths[op.path][op.method.toLowerCase()].responses['202'].headers?.Location;
    assert.ok(declared, `${op.operationId}: Location declared on its 202`);
    // The template names a served GET.
    const target = svc.operations.find((o) => o.method === 'GET' && o.path === op.locates);
    assert.ok(target, `${op.operationId}: ${op.locates} is a GET the service serves`);
  }
  assert.deepEqual(missing, []);
  for (const id of Object.keys(EXEMPT))
    assert.ok(
      svc.operations.some((o) => o.operationId === id),
      `${id} still exists`,
    );
});

test('an export and a webhook test answer 202 with a Location a caller can follow', async () => {
  const token = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'] });
  const auth = { authorization: `Bearer ${token}` };
  const exp = await svc.request({ method: 'POST', url: '/api/organisations/export', headers: auth, payload: { collections: ['telemetry.readings'] } });
  assert.equal(exp.statusCode, 202, exp.body);
  assert.equal(exp.headers.location, `/api/organisations/export/jobs/${json(exp).job_id}`);
  const job = await svc.request({ method: 'GET', url: String(exp.headers.location), headers: auth });
  assert.equal(job.statusCode, 200);
  assert.equal(json(job).job_id, json(exp).job_id);

  const endpoint = await registerEndpoint(svc, ORG, 'https://127.0.0.1:9/hook');
  const sent = await svc.request({ method: 'POST', url: `/api/devtools/webhooks/${endpoint.id}/test`, headers: auth });
  assert.equal(sent.statusCode, 202, sent.body);
  assert.equal(sent.headers.location, `/api/devtools/webhooks/${endpoint.id}/deliveries`);
  const log = json(await svc.request({ method: 'GET', url: String(sent.headers.location), headers: auth }));
  assert.ok(
    log.deliveries.some((d: { id: string }) => d.id === json(sent).delivery_id),
    'the queued delivery is in the log the Location names',
  );

  // The ledger rebuild's Location: test/energy/ledger.test.ts (rebuild).

  // A refusal carries no Location.
  const refused = await svc.request({ method: 'POST', url: '/api/organisations/export', headers: auth, payload: { collections: ['no.such'] } });
  assert.ok(refused.statusCode >= 400);
  assert.equal(refused.headers.location, undefined);
});
