// The home-automation connector through HTTP: API keys with scopes for the connector's own
// operations, the proposal from reported entities, confirmation by a person, readings normalised
// (units, power sign) and stored as telemetry, unmapped entities kept in raw, health, withdrawal;
// refusals by scope, role, other organisation and bad input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { issueKey } from '../devtools/helpers.ts';
import { call, clockOf, tokenFor } from './helpers.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const ORG = 'ha-org';
const OTHER = 'ha-other';
const SITE = 'flat-7';
const BASE = '/api/telemetry/connectors/home-automation';
let admin: string;
let viewer: string;
let other: string;
let write: { authorization: string };
let read: { authorization: string };
let devicesOnly: { authorization: string };
let otherKey: { authorization: string };

before(async () => {
  svc = await startTestService({ clock: new ManualClock('2026-11-23T12:00:00.000Z') });
  await svc.createOrg(ORG);
  await svc.createOrg(OTHER);
  admin = await tokenFor(svc, ORG);
  viewer = await tokenFor(svc, ORG, 'VIEWER');
  other = await tokenFor(svc, OTHER);
  write = (await issueKey(svc, ORG, { scopes: ['telemetry:read', 'telemetry:write'] })).auth;
  read = (await issueKey(svc, ORG, { scopes: ['telemetry:read'] })).auth;
  devicesOnly = (await issueKey(svc, ORG, { scopes: ['devices:read'] })).auth;
  otherKey = (await issueKey(svc, OTHER, { scopes: ['telemetry:read', 'telemetry:write'] })).auth;
  for (const [asset_id, asset_class, parent_asset_id] of [
    ['flat7-meter', 'smart_meter', null],
    ['flat7-inv', 'inverter', 'flat7-meter'],
    ['flat7-batt', 'battery', 'flat7-inv'],
  ]) {
    const r = await call(svc, admin, 'POST', '/api/twin/registry/assets', {
      asset_id,
      asset_class,
      site_id: SITE,
      name: asset_id,
      ...(parent_asset_id && { parent_asset_id }),
    });
    assert.equal(r.statusCode, 201, r.body);
  }
});
after(() => svc.stop());

const withKey = (key: { authorization: string }, method: 'GET' | 'POST', url: string, payload?: object) =>
  svc.request({ method, url, headers: key, ...(payload && { payload }) });

const ENTITIES = [
  { entity_id: 'sensor.solar_power', device_class: 'power', unit_of_measurement: 'W', friendly_name: 'Solar power' },
  { entity_id: 'sensor.battery_level', device_class: 'battery', unit_of_measurement: '%' },
  { entity_id: 'sensor.grid_power', device_class: 'power', unit_of_measurement: 'kW' },
  { entity_id: 'sensor.living_room_humidity', device_class: 'humidity', unit_of_measurement: '%' },
];

test('connector flow: report → proposal → confirm (PUT) → readings normalised and stored; unmapped kept in raw; health; X-Request-Id and RateLimit headers', async () => {
  const none = await withKey(read, 'GET', `${BASE}/v1/sites/${SITE}/mapping`);
  assert.equal(none.statusCode, 200, none.body);
  assert.deepEqual([json(none).status, json(none).entries, json(none).read_only], ['none', [], true]);
  assert.ok(none.headers['x-request-id']);
  assert.ok(none.headers['ratelimit-limit']);

  const rep = await withKey(write, 'POST', `${BASE}/v1/sites/${SITE}/report`, { entities: ENTITIES });
  assert.equal(rep.statusCode, 200, rep.body);
  const proposed = Object.fromEntries(json(rep).proposed.map((e: { entity_id: string }) => [e.entity_id, e]));
  assert.deepEqual(
    { asset_id: proposed['sensor.solar_power'].asset_id, measurement: proposed['sensor.solar_power'].measurement, sign: proposed['sensor.solar_power'].sign },
    { asset_id: 'flat7-inv', measurement: 'power_kw', sign: 'positive_is_export' },
  );
  assert.equal(proposed['sensor.battery_level'].asset_id, 'flat7-batt');
  assert.equal(proposed['sensor.battery_level'].measurement, 'soc_pct');
  assert.equal(proposed['sensor.grid_power'].asset_id, 'flat7-meter');
  assert.equal(proposed['sensor.grid_power'].sign, 'positive_is_import');
  assert.deepEqual(
    json(rep).ignored.map((i: { entity_id: string }) => i.entity_id),
    ['sensor.living_room_humidity'],
  );
  assert.equal(json(rep).mapping_status, 'proposed');

  // Before a person confirms, nothing is mapped: readings are kept in raw only.
  const early = await withKey(write, 'POST', `${BASE}/v1/sites/${SITE}/telemetry`, {
    readings: [{ entity_id: 'sensor.solar_power', state: '100', ts: '2026-11-23T11:59:00Z' }],
  });
  assert.equal(json(early).unmapped, 1);

  const viewerPut = await call(svc, viewer, 'PUT', `${BASE}/sites/${SITE}/mapping`, {});
  assert.deepEqual([viewerPut.statusCode, json(viewerPut).detail], [403, 'Insufficient permissions']);
  const put = await call(svc, admin, 'PUT', `${BASE}/sites/${SITE}/mapping`, {});
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(json(put).mapping_status, 'confirmed');
  assert.equal(json(put).mapped_entities, 3);

  const ts = '2026-11-23T12:00:00Z';
  const post = await withKey(write, 'POST', `${BASE}/v1/sites/${SITE}/telemetry`, {
    readings: [
      { entity_id: 'sensor.solar_power', state: '2500', ts },
      { entity_id: 'sensor.battery_level', state: 54, ts },
      { entity_id: 'sensor.grid_power', state: '0.8', ts },
      { entity_id: 'sensor.living_room_humidity', state: '48', ts },
      { entity_id: 'sensor.grid_power', state: 'unavailable', ts: '2026-11-23T11:59:30Z' },
    ],
    health: { status: 'online', version: '2026.11.1', uptime_s: 3600 },
  });
  assert.equal(post.statusCode, 200, post.body);
  const out = json(post);
  assert.deepEqual([out.stored, out.unmapped, out.rejected], [3, 1, 1]);
  assert.deepEqual(
    out.results.map((r: { value: number | null }) => r.value),
    [-2.5, 54, 0.8, null, null],
  );
  assert.equal(out.results[4].reason, 'unavailable');

  const events = json(await call(svc, admin, 'GET', `/api/telemetry/live/events?limit=50&asset_id=flat7-inv`));
  const list = events.events ?? events.records ?? events;
  assert.equal(list[0].power_kw, -2.5, 'solar generation is negative at the inverter');
  assert.equal(list[0].raw.entities['sensor.solar_power'].state, '2500', 'the reading as sent is kept in raw');
  const conn = json(await call(svc, admin, 'GET', `/api/telemetry/live/events?limit=50&asset_id=flat-7.home-automation`));
  const connList = conn.events ?? conn.records ?? conn;
  assert.equal(connList[0].raw.unmapped_entities[0].entity_id, 'sensor.living_room_humidity');

  const sites = json(await call(svc, viewer, 'GET', `${BASE}/sites`));
  assert.deepEqual(
    sites.sites.map((s: { site_id: string; mapping_status: string }) => [s.site_id, s.mapping_status]),
    [[SITE, 'confirmed']],
  );
  const site = json(await call(svc, viewer, 'GET', `${BASE}/sites/${SITE}`));
  assert.deepEqual(site.readings, { received: 6, stored: 3, unmapped: 2, rejected: 1 });
  assert.equal(site.read_only, true);
  clockOf(svc).advance(11 * 60_000);
  const health = json(await call(svc, viewer, 'GET', `${BASE}/sites/${SITE}/health`));
  assert.equal(health.state, 'late');
  assert.equal(health.connector_health.version, '2026.11.1');

  const mapping = json(await withKey(read, 'GET', `${BASE}/v1/sites/${SITE}/mapping`));
  assert.equal(mapping.status, 'confirmed');
  assert.equal(mapping.entries.length, 3);

  const del = await call(svc, admin, 'DELETE', `${BASE}/sites/${SITE}/mapping`);
  assert.equal(del.statusCode, 200, del.body);
  assert.equal(json(del).mapping_status, 'withdrawn');
  const after = await withKey(write, 'POST', `${BASE}/v1/sites/${SITE}/telemetry`, { readings: [{ entity_id: 'sensor.solar_power', state: 10, ts }] });
  assert.equal(json(after).unmapped, 1);
});

test('PUT with entries edits the mapping: assets must be at the site, units must measure the measurement; 409 with nothing to confirm', async () => {
  const site = 'flat-8';
  await call(svc, admin, 'POST', '/api/twin/registry/assets', { asset_id: 'flat8-hp', asset_class: 'heat_pump', site_id: site, name: 'HP' });
  await withKey(write, 'POST', `${BASE}/v1/sites/${site}/report`, {
    entities: [{ entity_id: 'sensor.flow_temp', device_class: 'temperature', unit_of_measurement: '°F' }],
  });
  const nothing = await call(svc, admin, 'PUT', `${BASE}/sites/${site}/mapping`, {});
  assert.deepEqual([nothing.statusCode, json(nothing).detail], [409, 'No mapping to confirm; report entities first or send one']);
  const wrongAsset = await call(svc, admin, 'PUT', `${BASE}/sites/${site}/mapping`, {
    entries: [{ entity_id: 'sensor.flow_temp', asset_id: 'flat7-inv', measurement: 'temp_c', unit: '°F' }],
  });
  assert.equal(wrongAsset.statusCode, 422);
  assert.deepEqual(json(wrongAsset).detail[0].loc, ['body', 'entries', 0, 'asset_id']);
  const wrongUnit = await call(svc, admin, 'PUT', `${BASE}/sites/${site}/mapping`, {
    entries: [{ entity_id: 'sensor.flow_temp', asset_id: 'flat8-hp', measurement: 'temp_c', unit: 'W' }],
  });
  assertRefused(wrongUnit, 422, { fields: ['body.entries.0.unit'] });
  const ok = await call(svc, admin, 'PUT', `${BASE}/sites/${site}/mapping`, {
    entries: [{ entity_id: 'sensor.flow_temp', asset_id: 'flat8-hp', measurement: 'temp_c', unit: '°F' }],
  });
  assert.equal(ok.statusCode, 200, ok.body);
  const post = json(
    await withKey(write, 'POST', `${BASE}/v1/sites/${site}/telemetry`, {
      readings: [{ entity_id: 'sensor.flow_temp', state: 104, ts: '2026-11-23T12:10:00Z' }],
    }),
  );
  assert.deepEqual(
    post.results.map((r: { value: number }) => r.value),
    [40],
    '104 °F is 40 °C',
  );
});

test('refusals: scopes, bearer on key operations, keys on people operations, other organisation, unknown site, bad input', async () => {
  const noScope = await withKey(devicesOnly, 'POST', `${BASE}/v1/sites/${SITE}/report`, { entities: ENTITIES });
  assert.deepEqual([noScope.statusCode, json(noScope).detail], [403, 'Missing scope: telemetry:write']);
  const readOnly = await withKey(read, 'POST', `${BASE}/v1/sites/${SITE}/telemetry`, { readings: [] });
  assertRefused(readOnly, 403, 'Missing scope: telemetry:write');
  const bearerOnKeyOp = await call(svc, admin, 'GET', `${BASE}/v1/sites/${SITE}/mapping`);
  assertRefused(bearerOnKeyOp, 401, 'This operation requires an API key');
  const keyOnPeopleOp = await withKey(write, 'GET', `${BASE}/sites`);
  assertRefused(keyOnPeopleOp, 401, 'API keys are not accepted by this operation');
  assertRefused(await withKey(otherKey, 'GET', `${BASE}/v1/sites/${SITE}/mapping`), 404, 'Not Found', "another organisation's site is not found");
  assertRefused(await call(svc, other, 'GET', `${BASE}/sites/${SITE}`), 404, 'Not Found');
  assertRefused(await call(svc, other, 'GET', `${BASE}/sites/${SITE}/health`), 404, 'Not Found');
  assertRefused(await call(svc, other, 'DELETE', `${BASE}/sites/${SITE}/mapping`), 404, 'Not Found');
  assert.deepEqual(json(await call(svc, other, 'GET', `${BASE}/sites`)).sites, []);
  assertRefused(await withKey(write, 'GET', `${BASE}/v1/sites/nowhere/mapping`), 404, 'Not Found');
  const dup = await withKey(write, 'POST', `${BASE}/v1/sites/${SITE}/report`, { entities: [ENTITIES[0], ENTITIES[0]] });
  assertRefused(dup, 422, { fields: ['body.entities.1.entity_id'] });
  const bad = await withKey(write, 'POST', `${BASE}/v1/sites/${SITE}/telemetry`, { readings: [{ entity_id: 'sensor.x', state: true, ts: 'now' }] });
  assertRefused(bad, 422, { fields: ['body.readings.0.state'] });
});

test('the people operations of the connector carry X-Request-Id too (concepts 7.5), on success and refusal; a well-formed incoming id is echoed', async () => {
  const id = 'ha-people-req-1';
  const answers = [
    await svc.request({ method: 'GET', url: `${BASE}/sites`, headers: { authorization: `Bearer ${viewer}`, 'x-request-id': id } }),
    await svc.request({ method: 'GET', url: `${BASE}/sites/${SITE}`, headers: { authorization: `Bearer ${viewer}`, 'x-request-id': id } }),
    await svc.request({ method: 'GET', url: `${BASE}/sites/${SITE}/health`, headers: { authorization: `Bearer ${viewer}`, 'x-request-id': id } }),
    await svc.request({ method: 'PUT', url: `${BASE}/sites/nowhere/mapping`, headers: { authorization: `Bearer ${admin}`, 'x-request-id': id }, payload: {} }),
    await svc.request({ method: 'DELETE', url: `${BASE}/sites/${SITE}/mapping`, headers: { authorization: `Bearer ${viewer}`, 'x-request-id': id } }),
  ];
  assert.deepEqual(
    answers.map((r) => r.statusCode),
    [200, 200, 200, 404, 403],
  );
  assert.deepEqual(json(answers[3]), { detail: 'Not Found' }, 'outside /api/devtools the error body stays {detail}');
  assert.deepEqual(json(answers[4]), { detail: 'Insufficient permissions' });
  for (const r of answers) assert.equal(r.headers['x-request-id'], id, r.body);
  const made = await svc.request({ method: 'GET', url: `${BASE}/sites` });
  assert.deepEqual([made.statusCode, json(made).detail], [401, 'Authorization header missing']);
  assert.ok(made.headers['x-request-id'], 'an id is made when none is sent, refusals included');
});
