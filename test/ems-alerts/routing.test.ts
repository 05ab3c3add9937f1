// EMS alert routing through HTTP: the module gate, rules with write-only secrets (rotation by
// PUT), the address policy, channels, failures recorded `failed` after one attempt, Teams shape,
// user preferences (kinds, quiet hours), and exactly one delivery per channel across two instances.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { json, realServers, startTestService, type TestService } from '../helpers/service.ts';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.ts';
import { isValidWebhookSignature } from '../../packages/sdk/src/verify-webhook.ts';
import { call, clockOf, newSecret, ok, silentInverter, startAt, startSmtp, smtpEnv, tokenFor, type Mailbox } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';
import { resolver } from '../../src/infra/outbound/http-client.ts';
import { subjectOf, textOf, slackBody, teamsBody, type RoutedMessage } from '../../src/modules/ems-alerts/channels.ts';

let svc: TestService;
let mail: Mailbox;
let rx: FakeServer;
let admin: string;
let viewer: string;
const ORG = 'route-org';
const OFF = 'route-off';

before(async () => {
  mail = await startSmtp();
  rx = await startFakeServer((_req, res) => {
    res.writeHead(200);
    res.end('1');
  });
  svc = await startAt({ env: { ...smtpEnv(mail), ROUTING_WEBHOOK_TIMEOUT_MS: '300' } });
  await svc.createOrg(ORG, ['ems/routing']);
  await svc.createOrg(OFF);
  await svc.createOrg('route-other', ['ems/routing']);
  admin = await tokenFor(svc, ORG);
  viewer = await tokenFor(svc, ORG, ['VIEWER']);
});
after(async () => {
  await svc.stop();
  await mail.close();
  await rx.close();
});

const ROUTING_OPS: [string, string, object?][] = [
  ['GET', '/api/hardware/ems/routing/rules'],
  ['POST', '/api/hardware/ems/routing/rules', { name: 'x', channels: [{ type: 'email', to: 'a@b.test' }] }],
  ['PUT', '/api/hardware/ems/routing/rules/rule_x', { name: 'x', channels: [{ type: 'email', to: 'a@b.test' }] }],
  ['DELETE', '/api/hardware/ems/routing/rules/rule_x'],
  ['GET', '/api/hardware/ems/routing/channels'],
  ['POST', '/api/hardware/ems/routing/dispatch'],
  ['POST', '/api/hardware/ems/routing/escalations/check'],
  ['GET', '/api/hardware/ems/routing/deliveries'],
];

test('module off: every routing operation answers 403 Module not enabled: ems/routing; evaluate still works and routes nothing', async () => {
  const t = await tokenFor(svc, OFF);
  for (const [m, url, body] of ROUTING_OPS) {
    const res = await call(svc, t, m, url, body);
    assert.equal(res.statusCode, 403, `${m} ${url}`);
    assert.equal(json(res).detail, 'Module not enabled: ems/routing');
  }
  const ev = await ok(svc, t, 'POST', '/api/hardware/ems/alerts/evaluate');
  assert.equal(ev.routing, null);
});

test('rules: create, list without secrets, PUT keeps or rotates the webhook secret, delete; refusals', async () => {
  const s1 = newSecret();
  const body = {
    name: 'Critical to on-call',
    match: { severities: ['critical'], site_ids: ['S1'], min_impact_gbp_per_day: '10' },
    channels: [
      { type: 'webhook', url: `${rx.url}/hook`, secret: s1 },
      { type: 'team_chat', url: `${rx.url}/teams/abc`, format: 'teams' },
    ],
  };
  const created = await ok(svc, admin, 'POST', '/api/hardware/ems/routing/rules', body, 201);
  assert.match(created.id, /^rule_/);
  assert.deepEqual(created.match, { severities: ['critical'], sources: [], site_ids: ['S1'], min_impact_gbp_per_day: '10' });
  assert.deepEqual(created.channels[0], { type: 'webhook', channel_key: `webhook:${rx.url}/hook`, url: `${rx.url}/hook`, secret_set: true });
  assert.equal(created.channels[1].url_hint, `${rx.url}/…`);
  const listed = await ok(svc, viewer, 'GET', '/api/hardware/ems/routing/rules');
  assert.equal(listed.rules.length, 1);
  assert.equal(JSON.stringify(listed).includes(s1), false);
  assert.equal(JSON.stringify(listed).includes('/teams/abc'), false);

  // Refusals
  const noSecret = await call(svc, admin, 'POST', '/api/hardware/ems/routing/rules', { name: 'n', channels: [{ type: 'webhook', url: `${rx.url}/other` }] });
  assert.equal(noSecret.statusCode, 422);
  assert.deepEqual(json(noSecret).detail[0].loc, ['body', 'channels', 0, 'secret']);
  const weak = await call(svc, admin, 'POST', '/api/hardware/ems/routing/rules', {
    name: 'n',
    channels: [{ type: 'webhook', url: `${rx.url}/o`, secret: 'hunter2' }],
  });
  assert.equal(weak.statusCode, 422);
  assert.equal(weak.body.includes('hunter2'), false, 'a refused secret is not echoed');
  const ssrf = await call(svc, admin, 'POST', '/api/hardware/ems/routing/rules', {
    name: 'n',
    channels: [{ type: 'team_chat', url: 'http://user:pw@127.0.0.1/x' }],
  });
  assert.equal(ssrf.statusCode, 422);
  assert.match(json(ssrf).detail[0].msg, /^URL refused: credentials in the URL/);
  const far = await call(svc, admin, 'POST', '/api/hardware/ems/routing/rules', {
    name: 'n',
    channels: [{ type: 'team_chat', url: 'https://hooks.slack.com/services/T/B/C' }],
  });
  assertRefused(far, 422, { fields: ['body.channels.0.url'] }, 'the outbound address policy applies (loopback only in tests)');
  const notMember = await call(svc, admin, 'POST', '/api/hardware/ems/routing/rules', { name: 'n', channels: [{ type: 'user', user_id: 'nobody' }] });
  assertRefused(notMember, 422, { fields: ['body.channels.0.user_id'] });
  const twice = await call(svc, admin, 'POST', '/api/hardware/ems/routing/rules', {
    name: 'n',
    channels: [
      { type: 'email', to: 'A@x.test' },
      { type: 'email', to: 'a@x.test' },
    ],
  });
  assertRefused(twice, 422, { fields: ['body.channels.1'] });
  const denied = await call(svc, viewer, 'POST', '/api/hardware/ems/routing/rules', body);
  assert.equal(denied.statusCode, 403);
  assert.equal(json(denied).detail, 'Insufficient permissions');

  // PUT without the secret keeps it; with one rotates it.
  const kept = await ok(svc, admin, 'PUT', `/api/hardware/ems/routing/rules/${created.id}`, {
    ...body,
    name: 'Renamed',
    channels: [{ type: 'webhook', url: `${rx.url}/hook` }, body.channels[1]],
  });
  assert.equal(kept.name, 'Renamed');
  assert.equal(kept.channels[0].secret_set, true);
  const other = await tokenFor(svc, 'route-other');
  assertRefused(
    await call(svc, other, 'PUT', `/api/hardware/ems/routing/rules/${created.id}`, body),
    404,
    'Not Found',
    "another organisation's rule is not found",
  );
  assertRefused(await call(svc, other, 'DELETE', `/api/hardware/ems/routing/rules/${created.id}`), 404, 'Not Found');
  assert.equal(await ok(svc, admin, 'DELETE', `/api/hardware/ems/routing/rules/${created.id}`, undefined, 204), null);
  assertRefused(await call(svc, admin, 'DELETE', `/api/hardware/ems/routing/rules/${created.id}`), 404, 'Not Found');
  assert.equal((await ok(svc, viewer, 'GET', '/api/hardware/ems/routing/rules')).rules.length, 0);
});

test('address policy at creation and update, as webhook registration words it: hosts resolving to private addresses, private literals and local names are 422', async () => {
  // Private outbound off, as in production. There is no DNS here: the names resolve through the
  // outbound module's resolver, replaced for this test.
  const strict = await startAt({ env: { ALLOW_PRIVATE_OUTBOUND: 'false', OUTBOUND_LOOPBACK_ONLY: 'false' } });
  const system = resolver.lookup;
  const names: Record<string, string[]> = {
    'chat.example.com': ['93.184.216.34'],
    'hooks.corp.example': ['10.1.2.3'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'metadata.example.net': ['169.254.169.254'],
  };
  resolver.lookup = async (host) => names[host] ?? [];
  try {
    await strict.createOrg('route-ssrf', ['ems/routing']);
    const t = await tokenFor(strict, 'route-ssrf');
    const secret = newSecret();
    const rule = (channels: object[], escalation?: object) => ({ name: 'r', channels, ...(escalation && { escalation }) });
    const good = await ok(strict, t, 'POST', '/api/hardware/ems/routing/rules', rule([{ type: 'team_chat', url: 'https://chat.example.com/services/x' }]), 201);
    const cases: [object, string, string][] = [
      [
        rule([{ type: 'team_chat', url: 'https://hooks.corp.example/services/x' }]),
        'body.channels.0.url',
        'URL refused: the host resolves to a non-public address',
      ],
      [
        rule([{ type: 'webhook', url: 'https://mixed.example.com/h', secret }]),
        'body.channels.0.url',
        'URL refused: the host resolves to a non-public address',
      ],
      [
        rule([{ type: 'email', to: 'a@b.test' }], { after_minutes: 5, channels: [{ type: 'webhook', url: 'https://metadata.example.net/h', secret }] }),
        'body.escalation.channels.0.url',
        'URL refused: the host resolves to a non-public address',
      ],
      [rule([{ type: 'team_chat', url: 'https://10.0.0.5/x' }]), 'body.channels.0.url', 'URL refused: address is not a public address'],
      [rule([{ type: 'webhook', url: 'https://127.0.0.1/h', secret }]), 'body.channels.0.url', 'URL refused: address is not a public address'],
      [rule([{ type: 'team_chat', url: 'https://localhost/x' }]), 'body.channels.0.url', 'URL refused: host is not public'],
      [rule([{ type: 'team_chat', url: 'http://chat.example.com/x' }]), 'body.channels.0.url', 'URL refused: scheme http: is not allowed'],
    ];
    for (const [body, loc, msg] of cases) {
      for (const [method, url] of [
        ['POST', '/api/hardware/ems/routing/rules'],
        ['PUT', `/api/hardware/ems/routing/rules/${good.id}`],
      ]) {
        const res = await call(strict, t, method, url, body);
        assertRefused(res, 422, { fields: [loc] }, `${method} ${JSON.stringify(body)}`);
        assert.equal(json(res).detail[0].msg, msg, `${method} ${JSON.stringify(body)}`);
      }
    }
    const rules = (await ok(strict, t, 'GET', '/api/hardware/ems/routing/rules')).rules;
    assert.deepEqual(
      rules.map((r: any) => [r.id, r.channels[0].url_hint]),
      [[good.id, 'https://chat.example.com/…']],
      'nothing refused was stored or changed',
    );
    // Webhook registration says the same words for the same host (one check).
    await strict.createOrg('route-ssrf-dev');
    const dev = await strict.request({
      method: 'POST',
      url: '/api/devtools/webhooks',
      headers: { authorization: `Bearer ${await tokenFor(strict, 'route-ssrf-dev')}` },
      payload: { url: 'https://hooks.corp.example/h' },
    });
    assert.equal(dev.statusCode, 422, dev.body);
    assert.deepEqual([json(dev).detail[0].loc, json(dev).detail[0].msg], [['body', 'url'], 'URL refused: the host resolves to a non-public address']);
  } finally {
    resolver.lookup = system;
    await strict.stop();
  }
});

test('CR and LF never reach a message: site ids and rule names refuse them; rendering keeps every value on its line', async () => {
  const t = await tokenFor(svc, ORG);
  const asset = await call(svc, t, 'POST', '/api/twin/registry/assets', {
    asset_id: 'crlf-1',
    site_id: 'S1\r\nBcc: x@evil.test',
    asset_class: 'site_meter',
    name: 'm',
  });
  assertRefused(asset, 422, { fields: ['body.site_id'] });
  assertRefused(
    await call(svc, t, 'POST', '/api/hardware/ems/routing/rules', {
      name: 'ok\nAcknowledge: https://evil.test',
      channels: [{ type: 'email', to: 'a@b.test' }],
    }),
    422,
    { fields: ['body.name'] },
  );
  assertRefused(
    await call(svc, t, 'POST', '/api/hardware/ems/routing/rules', {
      name: 'n',
      match: { site_ids: ['S1\r\nX'] },
      channels: [{ type: 'email', to: 'a@b.test' }],
    }),
    422,
    { fields: ['body.match.site_ids.0'] },
  );
  // Values stored before these rules (or from any other path) are escaped where they are written.
  const m: RoutedMessage = {
    orgId: ORG,
    rule: { id: 'rule_1', name: 'On call\r\nAcknowledge: https://evil.test' },
    reason: 'routed',
    deliveryId: 'rdl_1',
    alert: {
      id: 'alrt_1',
      title: 'inv at S1\r\nBcc: x@evil.test has sent nothing',
      severity: 'critical',
      source: 'asset_silence',
      site_id: 'S1\r\nBcc: x@evil.test',
      asset_id: 'inv',
      since: '2026-11-24T10:00:00.000Z',
      impact_gbp_per_day: '1.00',
      impact_method: 'm',
      evidence: {},
    } as unknown as RoutedMessage['alert'],
  };
  assert.doesNotMatch(subjectOf(m), /[\r\n]/);
  const text = textOf(m);
  assert.equal(
    text.split('\n').length,
    textOf({ ...m, rule: { id: 'rule_1', name: 'x' }, alert: { ...m.alert, title: 'x', site_id: 'x' } }).split('\n').length,
  );
  assert.doesNotMatch(text, /\r|^Bcc:|^Acknowledge: https/m);
  assert.match(text, /Site: S1\\r\\nBcc: x@evil\.test/);
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
  for (const b of [slackBody(m), teamsBody(m)]) {
    for (const str of strings(b)) assert.doesNotMatch(str, /[\r\n](Bcc|Acknowledge)/);
  }
  assert.ok(
    strings(slackBody(m)).some((x) => x.includes('S1\\r\\nBcc')),
    'the value is shown, escaped',
  );
});

test('deliveries: webhook secret kept then rotated, Teams card, 500 and timeout recorded failed after one attempt; channels listing', async () => {
  const clock = clockOf(svc);
  const ORG2 = 'route-deliv';
  await svc.createOrg(ORG2, ['ems/routing']);
  const t = await tokenFor(svc, ORG2);
  await silentInverter(svc, t, 'inv-a');
  const s1 = newSecret();
  const s2 = newSecret();
  const seen: { url: string; status: number }[] = [];
  const bad = await startFakeServer((req, res) => {
    seen.push({ url: req.url, status: 0 });
    if (req.url === '/slow') return; // never answers
    res.writeHead(req.url === '/fail' ? 500 : 200);
    res.end();
  });
  try {
    const rule = await ok(
      svc,
      t,
      'POST',
      '/api/hardware/ems/routing/rules',
      {
        name: 'all',
        channels: [
          { type: 'webhook', url: `${bad.url}/ok`, secret: s1 },
          { type: 'webhook', url: `${bad.url}/fail`, secret: s1 },
          { type: 'webhook', url: `${bad.url}/slow`, secret: s1 },
          { type: 'team_chat', url: `${bad.url}/teams`, format: 'teams' },
        ],
      },
      201,
    );
    // Rotate by PUT before anything is sent: the new secret signs, the old one no longer verifies.
    await ok(svc, t, 'PUT', `/api/hardware/ems/routing/rules/${rule.id}`, {
      name: 'all',
      channels: [
        { type: 'webhook', url: `${bad.url}/ok`, secret: s2 },
        { type: 'webhook', url: `${bad.url}/fail` },
        { type: 'webhook', url: `${bad.url}/slow` },
        { type: 'team_chat', url: `${bad.url}/teams`, format: 'teams' },
      ],
    });
    const ev = await ok(svc, t, 'POST', '/api/hardware/ems/alerts/evaluate');
    assert.equal(ev.raised.length, 1);
    const byTarget = Object.fromEntries(ev.routing.deliveries.map((d: { target: string }) => [d.target, d]));
    assert.equal(byTarget[`${bad.url}/ok`].outcome, 'delivered');
    assert.equal(byTarget[`${bad.url}/fail`].outcome, 'failed');
    assert.equal(byTarget[`${bad.url}/fail`].status_code, 500);
    assert.equal(byTarget[`${bad.url}/fail`].error, 'HTTP 500');
    assert.equal(byTarget[`${bad.url}/slow`].outcome, 'failed');
    assert.equal(byTarget[`${bad.url}/slow`].status_code, null);
    assert.equal(byTarget[`${bad.url}/slow`].error, 'connection failed: no HTTP answer within 300 ms');
    const okReq = bad.requests.find((r) => r.url === '/ok')!;
    const now = clock.now();
    assert.equal(isValidWebhookSignature({ body: okReq.body, signature: okReq.headers['platform-signature'], secret: s2, now }), true);
    assert.equal(isValidWebhookSignature({ body: okReq.body, signature: okReq.headers['platform-signature'], secret: s1, now }), false);
    const failReq = bad.requests.find((r) => r.url === '/fail')!;
    assert.equal(
      isValidWebhookSignature({ body: failReq.body, signature: failReq.headers['platform-signature'], secret: s1, now }),
      true,
      'a PUT without the secret kept it',
    );
    const teams = JSON.parse(bad.requests.find((r) => r.url === '/teams')!.body);
    assert.equal(teams.type, 'message');
    assert.equal(teams.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
    assert.equal(teams.attachments[0].content.type, 'AdaptiveCard');
    assert.ok(JSON.stringify(teams).includes('£5.88/day'));

    // No retry: dispatching again sends nothing to any of them, failed ones included.
    const before = bad.requests.length;
    const again = await ok(svc, t, 'POST', '/api/hardware/ems/routing/dispatch');
    assert.equal(again.deliveries.length, 0);
    assert.equal(again.already_delivered, 4);
    assert.equal(bad.requests.length, before);

    const failed = await ok(svc, t, 'GET', '/api/hardware/ems/routing/deliveries?outcome=failed');
    assert.equal(failed.deliveries.length, 2);
    const page1 = await ok(svc, t, 'GET', '/api/hardware/ems/routing/deliveries?limit=3');
    assert.equal(page1.deliveries.length, 3);
    assert.equal(page1.has_more, true);
    const page2 = await ok(svc, t, 'GET', `/api/hardware/ems/routing/deliveries?limit=3&cursor=${encodeURIComponent(page1.next_cursor)}`);
    assert.equal(page2.deliveries.length, 1);
    assertRefused(
      await call(svc, t, 'GET', `/api/hardware/ems/routing/deliveries?limit=2&cursor=${encodeURIComponent(page1.next_cursor)}&outcome=failed`),
      400,
      'invalid_cursor',
    );

    const ch = await ok(svc, t, 'GET', '/api/hardware/ems/routing/channels');
    assert.deepEqual(
      ch.types.map((x: { type: string }) => x.type),
      ['email', 'team_chat', 'webhook', 'user'],
    );
    assert.deepEqual(ch.email, { configured: true, from: 'alerts@platform.test' });
    assert.deepEqual(ch.webhook, { attempts: 1, timeout_seconds: 0.3, retry: false, signature_header: 'Platform-Signature', event_type: 'emsAlertRouted' });
    assert.equal(ch.channels.length, 4);
    assert.deepEqual(ch.channels[0].rule_ids, [rule.id]);
    assert.equal(JSON.stringify(ch).includes(s2), false);
    // Another organisation's log is its own.
    assert.equal((await ok(svc, await tokenFor(svc, 'route-other'), 'GET', '/api/hardware/ems/routing/deliveries')).deliveries.length, 0);
  } finally {
    await bad.close();
  }
});

// A routing call starts deliveries for ROUTING_CALL_BUDGET_MS (30 s) of the service's clock and no
// longer (decision 0515): receivers that take their time cannot hold one call for hours. Here the
// receiver's first request moves the clock past the budget: the four deliveries started together go
// out, the other two are deferred, and the next dispatch sends them.
test('a routing call starts deliveries for its time budget; those not started are deferred and sent by the next dispatch', async () => {
  const clock = clockOf(svc);
  const O = 'route-budget';
  await svc.createOrg(O, ['ems/routing']);
  const t = await tokenFor(svc, O);
  await silentInverter(svc, t, 'inv-b');
  let slow = true;
  const rx6 = await startFakeServer((_req, res) => {
    if (slow) {
      slow = false;
      clock.advance(31_000);
    }
    res.writeHead(200);
    res.end();
  });
  try {
    const channels = [1, 2, 3, 4, 5, 6].map((i) => ({ type: 'webhook', url: `${rx6.url}/r${i}`, secret: newSecret() }));
    await ok(svc, t, 'POST', '/api/hardware/ems/routing/rules', { name: 'six', channels }, 201);
    const ev = await ok(svc, t, 'POST', '/api/hardware/ems/alerts/evaluate');
    assert.equal(ev.raised.length, 1);
    assert.deepEqual([ev.routing.deliveries.length, ev.routing.already_delivered, ev.routing.deferred], [4, 0, 2]);
    assert.ok(ev.routing.deliveries.every((d: { outcome: string }) => d.outcome === 'delivered'));
    const next = await ok(svc, t, 'POST', '/api/hardware/ems/routing/dispatch');
    assert.deepEqual([next.deliveries.length, next.already_delivered, next.deferred], [2, 4, 0]);
    const reached = rx6.requests.map((r) => r.url).sort();
    assert.deepEqual(reached, ['/r1', '/r2', '/r3', '/r4', '/r5', '/r6'], 'each channel once');
  } finally {
    await rx6.close();
  }
});

test('user channel honours preferences: kind off is suppressed; email held in quiet hours and sent by a later dispatch', async () => {
  const clock = clockOf(svc);
  const ORG3 = 'route-prefs';
  await svc.createOrg(ORG3, ['ems/routing']);
  const t = await tokenFor(svc, ORG3);
  const quiet = await svc.createUser(ORG3, 'night@prefs.test', 'OPERATOR');
  const off = await svc.createUser(ORG3, 'off@prefs.test', 'OPERATOR');
  const tq = await tokenFor(svc, ORG3, ['OPERATOR'], { userId: quiet.id });
  const toff = await tokenFor(svc, ORG3, ['OPERATOR'], { userId: off.id });
  await ok(svc, tq, 'PUT', '/api/notifications/preferences', {
    channels: { in_app: true, email: true },
    quiet_hours: { start: '11:00', end: '13:00', timezone: 'Europe/London' },
  });
  await ok(svc, toff, 'PUT', '/api/notifications/preferences', { kinds: { alert_routed: false } });
  await silentInverter(svc, t, 'inv-p');
  await ok(
    svc,
    t,
    'POST',
    '/api/hardware/ems/routing/rules',
    {
      name: 'people',
      channels: [
        { type: 'user', user_id: quiet.id },
        { type: 'user', user_id: off.id },
      ],
    },
    201,
  );
  const sentBefore = mail.messages.length;
  const ev = await ok(svc, t, 'POST', '/api/hardware/ems/alerts/evaluate');
  const rows = ev.routing.deliveries.map(
    (d: { channel_type: string; target: string; outcome: string; error: string | null }) =>
      `${d.target === quiet.id ? 'quiet' : 'off'}:${d.channel_type}:${d.outcome}`,
  );
  assert.deepEqual(rows.sort(), ['off:in_app:suppressed', 'quiet:email:suppressed', 'quiet:in_app:delivered']);
  assert.equal(mail.messages.length, sentBefore, 'no email in quiet hours');
  assert.equal((await ok(svc, toff, 'GET', '/api/notifications/unread-count')).unread, 0);
  assert.equal((await ok(svc, tq, 'GET', '/api/notifications/unread-count')).unread, 1);

  clock.set('2026-11-24T13:30:00Z');
  const later = await ok(svc, t, 'POST', '/api/hardware/ems/routing/dispatch');
  assert.deepEqual(later.deliveries.map((d: { channel_type: string; outcome: string }) => `${d.channel_type}:${d.outcome}`).sort(), [
    'email:delivered',
    'in_app:suppressed',
  ]);
  assert.equal(mail.messages.length, sentBefore + 1);
  assert.deepEqual(mail.messages.at(-1)!.to, ['night@prefs.test']);
  assert.equal((await ok(svc, tq, 'GET', '/api/notifications/unread-count')).unread, 1, 'the in-app notification is not repeated');
  clock.set('2026-11-24T12:00:00Z');
});

test('two instances dispatching at once deliver each channel exactly once', {
  skip:
    !realServers.database &&
    'needs PostgreSQL: the instances claim each channel by a unique insert from their own pools; on PGlite they share one connection and never claim at the same time',
}, async () => {
  const a = await startAt({ env: smtpEnv(mail) });
  const b = await startTestService({ shareWith: a, env: smtpEnv(mail) });
  const rxTwo = await startFakeServer((_req, res) => {
    res.writeHead(200);
    res.end();
  });
  try {
    const ORG4 = 'route-twice';
    await a.createOrg(ORG4, ['ems/routing']);
    const ta = await tokenFor(a, ORG4);
    const tb = await tokenFor(b, ORG4);
    await silentInverter(a, ta, 'inv-t');
    await ok(
      a,
      ta,
      'POST',
      '/api/hardware/ems/routing/rules',
      {
        name: 'twice',
        channels: [
          { type: 'webhook', url: `${rxTwo.url}/w`, secret: newSecret() },
          { type: 'team_chat', url: `${rxTwo.url}/c` },
          { type: 'email', to: 'twice@x.test' },
        ],
      },
      201,
    );
    // Evaluate routes the new alert once; then both instances dispatch at once and find every channel claimed.
    const ev = await ok(a, ta, 'POST', '/api/hardware/ems/alerts/evaluate');
    const viaEvaluate = ev.routing.deliveries.length;
    assert.equal(viaEvaluate, 3);
    const mailsBefore = mail.messages.length;
    const [ra, rb] = await Promise.all([ok(a, ta, 'POST', '/api/hardware/ems/routing/dispatch'), ok(b, tb, 'POST', '/api/hardware/ems/routing/dispatch')]);
    assert.equal(ra.deliveries.length + rb.deliveries.length, 0);
    assert.equal(rxTwo.requests.length, 2);
    assert.equal(mail.messages.length, mailsBefore);
    // A new alert, dispatched by both instances at once: each channel once.
    await silentInverter(a, ta, 'inv-u', 'S10');
    await ok(a, ta, 'DELETE', '/api/hardware/ems/routing/rules/' + (await ok(a, ta, 'GET', '/api/hardware/ems/routing/rules')).rules[0].id, undefined, 204);
    await ok(a, ta, 'POST', '/api/hardware/ems/alerts/evaluate'); // raises inv-u, no rule: routes nothing
    await ok(
      a,
      ta,
      'POST',
      '/api/hardware/ems/routing/rules',
      {
        name: 'twice again',
        match: { site_ids: ['S10'] },
        channels: [
          { type: 'webhook', url: `${rxTwo.url}/w2`, secret: newSecret() },
          { type: 'team_chat', url: `${rxTwo.url}/c2` },
          { type: 'email', to: 'twice2@x.test' },
        ],
      },
      201,
    );
    const [x, y] = await Promise.all([ok(a, ta, 'POST', '/api/hardware/ems/routing/dispatch'), ok(b, tb, 'POST', '/api/hardware/ems/routing/dispatch')]);
    assert.equal(x.deliveries.length + y.deliveries.length, 3, 'three channels, each once');
    assert.deepEqual(
      [...x.deliveries, ...y.deliveries].map((d: { outcome: string }) => d.outcome),
      ['delivered', 'delivered', 'delivered'],
    );
    assert.equal(x.already_delivered + y.already_delivered, 3, 'the other instance found each claimed');
    assert.deepEqual(rxTwo.requests.map((r) => r.url).sort(), ['/c', '/c2', '/w', '/w2']);
    assert.equal(mail.messages.filter((m) => m.to.includes('twice2@x.test')).length, 1);
    const log = await ok(b, tb, 'GET', '/api/hardware/ems/routing/deliveries');
    assert.equal(log.deliveries.length, 6);
  } finally {
    await b.stop();
    await a.stop();
    await rxTwo.close();
  }
});
