// The whole path through HTTP: telemetry goes silent → evaluate raises an alert with its £/day →
// a rule routes it to a real SMTP server, a team-chat receiver and a signed-webhook receiver on
// loopback → nobody acknowledges → escalation fires once → acknowledge → resolve; the delivery log
// shows every attempt.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, type TestService } from '../helpers/service.ts';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.ts';
import { verifyWebhook } from '../../packages/sdk/src/verify-webhook.ts';
import { call, clockOf, newSecret, ok, startAt, startSmtp, smtpEnv, tokenFor, type Mailbox } from './helpers.ts';

let svc: TestService;
let mail: Mailbox;
let chat: FakeServer;
let hook: FakeServer;
let admin: string;
let operatorId: string;
const ORG = 'e2e-ems';

before(async () => {
  mail = await startSmtp();
  chat = await startFakeServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  hook = await startFakeServer((_req, res) => {
    res.writeHead(204);
    res.end();
  });
  svc = await startAt({ env: smtpEnv(mail) });
  await svc.createOrg(ORG, ['ems/routing']);
  const u = await svc.createUser(ORG, 'ops@e2e.test', 'OPERATOR');
  operatorId = u.id;
  admin = await tokenFor(svc, ORG, ['ORG_ADMIN']);
});
after(async () => {
  await svc.stop();
  await mail.close();
  await chat.close();
  await hook.close();
});

test('silent inverter → £/day alert → email, Slack and signed webhook → one escalation → acknowledge → resolve, all in the delivery log', async () => {
  const clock = clockOf(svc);
  const secret = newSecret();
  await ok(
    svc,
    admin,
    'POST',
    '/api/twin/registry/assets',
    { asset_id: 'pv-9', site_id: 'farm', type: 'inverter', name: 'Field PV', asset_class: 'inverter', details: {} },
    201,
  );
  // Reporting -2 kW every 15 minutes (within the ledger's power gap limit) for a day, up to 11:30.
  const records = [];
  for (let t = Date.parse('2026-11-23T11:30:00Z'); t <= Date.parse('2026-11-24T11:30:00Z'); t += 900_000) {
    records.push({ asset_id: 'pv-9', ts: new Date(t).toISOString(), power_kw: -2 });
  }
  await ok(svc, admin, 'POST', '/api/telemetry/ingest', records);

  const rule = await ok(
    svc,
    admin,
    'POST',
    '/api/hardware/ems/routing/rules',
    {
      name: 'Silent generation',
      match: { sources: ['asset_silence'], min_impact_gbp_per_day: '1.00' },
      channels: [
        { type: 'email', to: 'oncall@e2e.test' },
        { type: 'team_chat', url: `${chat.url}/services/T000/B000/XXXX`, format: 'slack' },
        { type: 'webhook', url: `${hook.url}/ems`, secret },
      ],
      escalation: {
        after_minutes: 30,
        channels: [
          { type: 'email', to: 'manager@e2e.test' },
          { type: 'user', user_id: operatorId },
        ],
      },
    },
    201,
  );
  assert.equal(JSON.stringify(rule).includes(secret), false, 'the secret is never shown');
  assert.equal(JSON.stringify(rule).includes('XXXX'), false, 'the team-chat URL is never shown');

  // While it reports, nothing is raised.
  clock.set('2026-11-24T12:10:00Z');
  assert.equal((await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate')).raised.length, 0);

  // It goes silent: the newest record (11:30) is an hour old at 12:30.
  clock.set('2026-11-24T12:30:00Z');
  const ev = await ok(svc, admin, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.equal(ev.raised.length, 1);
  const alert = ev.raised[0];
  // The ledger's generation in the 24 h before 11:30: 24 h × 2 kW = 48 kWh → 48 × 24.50p = £11.76/day.
  assert.equal(alert.source, 'asset_silence');
  assert.equal(alert.impact_gbp_per_day, '11.76');
  assert.equal(alert.severity, 'warning');
  assert.equal(ev.routing.deliveries.length, 3);
  assert.deepEqual(
    ev.routing.deliveries.map((d: { outcome: string }) => d.outcome),
    ['delivered', 'delivered', 'delivered'],
  );

  // Email arrived at the SMTP server.
  assert.equal(mail.messages.length, 1);
  const m = mail.messages[0];
  assert.deepEqual(m.to, ['oncall@e2e.test']);
  assert.equal(m.from, 'alerts@platform.test');
  assert.equal(m.mail.subject, `[EMS warning] £11.76/day: ${alert.title}`);
  assert.match(m.mail.text ?? '', /Impact: £11\.76 per day/);
  assert.equal(m.mail.headers.get('x-platform-alert-id'), alert.id);

  // Slack incoming-webhook shape.
  assert.equal(chat.requests.length, 1);
  assert.equal(chat.requests[0].url, '/services/T000/B000/XXXX');
  const slack = JSON.parse(chat.requests[0].body);
  assert.equal(slack.text, `[EMS warning] £11.76/day: ${alert.title}`);
  assert.equal(slack.blocks[0].type, 'header');
  assert.ok(JSON.stringify(slack.blocks).includes('£11.76/day'));

  // Signed emsAlertRouted, verified with the project's own helper.
  assert.equal(hook.requests.length, 1);
  const h = hook.requests[0];
  const event = verifyWebhook<{ alert: { id: string; impact_gbp_per_day: string }; reason: string; rule: { id: string } }>({
    body: h.body,
    signature: h.headers['platform-signature'],
    secret,
    now: clock.now(),
  });
  assert.equal(event.type, 'emsAlertRouted');
  assert.equal(event.organisation_id, ORG);
  assert.equal(event.data.alert.id, alert.id);
  assert.equal(event.data.alert.impact_gbp_per_day, '11.76');
  assert.equal(event.data.reason, 'routed');
  assert.equal(event.data.rule.id, rule.id);
  assert.equal(h.headers['platform-event-type'], 'emsAlertRouted');
  assert.throws(() => verifyWebhook({ body: h.body, signature: h.headers['platform-signature'], secret: newSecret(), now: clock.now() }));

  // Dispatch again: every channel already reached, nothing sent twice.
  const again = await ok(svc, admin, 'POST', '/api/hardware/ems/routing/dispatch');
  assert.equal(again.deliveries.length, 0);
  assert.equal(again.already_delivered, 3);

  // Not yet 30 minutes: no escalation.
  clock.set('2026-11-24T12:50:00Z');
  assert.equal((await ok(svc, admin, 'POST', '/api/hardware/ems/routing/escalations/check')).deliveries.length, 0);
  // Nobody acknowledged by 13:05: escalation fires, once.
  clock.set('2026-11-24T13:05:00Z');
  const esc = await ok(svc, admin, 'POST', '/api/hardware/ems/routing/escalations/check');
  assert.deepEqual(esc.deliveries.map((d: { channel_type: string; reason: string; outcome: string }) => `${d.channel_type}:${d.reason}:${d.outcome}`).sort(), [
    'email:escalated:delivered',
    'in_app:escalated:delivered',
  ]);
  assert.equal(mail.messages.length, 2);
  assert.deepEqual(mail.messages[1].to, ['manager@e2e.test']);
  assert.match(mail.messages[1].mail.subject ?? '', /^\[ESCALATED EMS warning\]/);
  const opToken = await tokenFor(svc, ORG, ['OPERATOR'], { userId: operatorId });
  const notes = await ok(svc, opToken, 'GET', '/api/notifications/');
  assert.equal(notes.notifications.length, 1);
  assert.equal(notes.notifications[0].kind, 'alert_escalated');
  assert.equal(notes.notifications[0].data.alert_id, alert.id);
  clock.set('2026-11-24T13:20:00Z');
  const esc2 = await ok(svc, admin, 'POST', '/api/hardware/ems/routing/escalations/check');
  assert.equal(esc2.deliveries.length, 0, 'escalation fires once');
  assert.equal(esc2.already_delivered, 2);

  // Acknowledge, then resolve (who and why).
  const ack = await ok(svc, opToken, 'POST', `/api/hardware/admin/alerts-history/${alert.id}/acknowledge`, { note: 'on my way' });
  assert.equal(ack.acknowledged_by, operatorId);
  assert.equal(ack.acknowledged_at, '2026-11-24T13:20:00.000Z');
  clock.set('2026-11-24T13:40:00Z');
  const res = await ok(svc, opToken, 'POST', `/api/hardware/admin/alerts-history/${alert.id}/resolve`, { reason: 'inverter breaker reset' });
  assert.equal(res.status, 'resolved');
  assert.equal(res.resolved_by, operatorId);
  assert.equal(res.resolution_reason, 'inverter breaker reset');
  assert.equal(res.resolved_at, '2026-11-24T13:40:00.000Z');
  assert.deepEqual(
    res.history.map((e: { action: string }) => e.action),
    ['acknowledge', 'resolve'],
  );
  assert.equal((await ok(svc, admin, 'GET', '/api/hardware/ems/alerts')).count, 0);

  // The delivery log: every attempt, newest first, with outcome, timing and status.
  const log = await ok(svc, admin, 'GET', `/api/hardware/ems/routing/deliveries?alert_id=${alert.id}`);
  assert.equal(log.deliveries.length, 5);
  const rows = log.deliveries.map(
    (d: { channel_type: string; reason: string; outcome: string; status_code: number | null; trigger: string }) =>
      `${d.trigger}:${d.channel_type}:${d.reason}:${d.outcome}:${d.status_code}`,
  );
  assert.deepEqual(rows.sort(), [
    'escalations_check:email:escalated:delivered:250',
    'escalations_check:in_app:escalated:delivered:null',
    'evaluate:email:routed:delivered:250',
    'evaluate:team_chat:routed:delivered:200',
    'evaluate:webhook:routed:delivered:204',
  ]);
  for (const d of log.deliveries) assert.ok(typeof d.duration_ms === 'number' && d.attempted_at.endsWith('Z'));
  const webhookRow = log.deliveries.find((d: { channel_type: string }) => d.channel_type === 'webhook');
  assert.equal(webhookRow.event_id, event.id);
  assert.equal(webhookRow.target, `${hook.url}/ems`);
  assert.equal(log.deliveries.find((d: { channel_type: string }) => d.channel_type === 'team_chat').target.includes('XXXX'), false);
  void json;
  void call;
});
