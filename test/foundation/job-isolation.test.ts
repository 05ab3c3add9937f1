// One organisation's bad data fails only itself (issue 35, decision 0285): every background job
// that works across organisations runs each organisation as its own unit. Each test puts poison
// straight into the store for one organisation (what the intake may refuse since: the job must be
// robust regardless), runs the job once, and reads another organisation's figures through HTTP
// (done in the same run); then the poisoned unit is retried, quarantined with a visible status and
// a metric, and released once its data is fixed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { scrape, sample } from '../helpers/metrics.ts';
import { asset, call, counterSeries, json, tokenFor } from '../energy/helpers.ts';
import { registerEndpoint, startReceiver } from '../devtools/helpers.ts';

let svc: TestService;
const clock = new ManualClock('2026-11-02T12:00:00Z');
const GOOD = 'iso-good';
const BAD = 'iso-bad';
const tokens: Record<string, string> = {};

before(async () => {
  svc = await startTestService({ clock });
  for (const org of [GOOD, BAD]) {
    await svc.createOrg(org);
    tokens[org] = await tokenFor(svc, org);
    await asset(svc, tokens[org]!, { asset_id: 'meter', site_id: 'depot', asset_class: 'site_meter' });
  }
});
after(() => svc?.stop());

const db = () => svc.deps.db;

/** Runs every job due after moving the clock by `ms`. */
async function tick(ms: number) {
  clock.advance(ms);
  await svc.runDue();
}

async function ledger(org: string, date: string) {
  const res = await call(svc, tokens[org]!, 'GET', `/api/telemetry/sites/depot/ledger?date=${date}`);
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

/**
 * Readings of the site 'depot' stored for `org` with their pending span, and a store that cannot take
 * that site's energy rows (a trigger raising numeric_value_out_of_range, as a value a column cannot
 * hold did before the intake's bounds, decision 0280, refused such values): the energy work of that
 * one site of that one organisation fails in the store. Returns the fix (the trigger removed).
 */
async function poisonTelemetry(org: string, day: string, pending = true): Promise<() => Promise<void>> {
  for (const [i, ts] of [`${day}T10:00:00Z`, `${day}T10:05:00Z`].entries()) {
    await db().query(`insert into telemetry (org_id, asset_id, ts, received_at, power_kw, raw) values ($1, 'meter', $2, $2, 5, $3::jsonb)`, [
      org,
      ts,
      JSON.stringify({ i }),
    ]);
  }
  if (pending)
    await db().query(`insert into energy_pending (org_id, asset_id, from_ts, to_ts) values ($1, 'meter', $2, $3)`, [
      org,
      `${day}T10:00:00Z`,
      `${day}T10:05:00Z`,
    ]);
  const fn = 'iso_poison_site_flows';
  await db().query(
    `create or replace function ${fn}() returns trigger language plpgsql as $$
     begin
       if new.org_id = '${org}' and new.site_id = 'depot' then raise exception 'numeric field overflow' using errcode = '22003'; end if;
       return new;
     end $$`,
  );
  await db().query(`create trigger ${fn} before insert or update on energy_asset_flows for each row execute function ${fn}()`);
  return async () => {
    await db().query(`drop trigger ${fn} on energy_asset_flows`);
    await db().query(`drop function ${fn}()`);
  };
}

test('energy refresh: a poisoned organisation is quarantined while another organisation is refreshed in the same run', async () => {
  const unpoison = await poisonTelemetry(BAD, '2026-11-01');
  // The good organisation's readings arrive through HTTP: 12 half hours of 1 kWh on the counter.
  const sent = await call(
    svc,
    tokens[GOOD]!,
    'POST',
    '/api/telemetry/ingest',
    counterSeries('meter', 'import_kwh', Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-01T06:00:00Z'), 1),
  );
  assert.equal(sent.statusCode, 200, sent.body);

  await tick(31_000);
  const good = await ledger(GOOD, '2026-11-01');
  assert.equal(good.totals.import_kwh, '12.000');
  assert.equal(good.pending_refresh, false);
  assert.equal(good.refresh_quarantine, null);
  // The poisoned organisation: still pending, not yet quarantined (retrying with backoff).
  let bad = await ledger(BAD, '2026-11-01');
  assert.equal(bad.pending_refresh, true);
  assert.equal(bad.refresh_quarantine, null);

  // Its attempts are spent over the next runs (backoff 30 s doubling); meanwhile the good one goes on.
  for (let i = 0; i < 4; i++) await tick(20 * 60_000);
  bad = await ledger(BAD, '2026-11-01');
  assert.equal(bad.pending_refresh, true);
  assert.equal(bad.refresh_quarantine.error_class, 'numeric_value_out_of_range');
  assert.match(bad.refresh_quarantine.since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Date.parse(bad.refresh_quarantine.next_retry_at) > clock.now().getTime());
  assert.doesNotMatch(JSON.stringify(bad), /out of range|overflow/i, 'no store error text reaches the organisation');
  const metrics = await scrape(svc);
  assert.equal(sample(metrics, 'eps_job_units_quarantined', 'kind="energy.refresh"'), 1);
  assert.equal(sample(metrics, 'eps_job_unit_failures_total', 'kind="energy.refresh"'), 5);

  // The good organisation's next readings are folded in while the other stays quarantined.
  const more = await call(
    svc,
    tokens[GOOD]!,
    'POST',
    '/api/telemetry/ingest',
    counterSeries('meter', 'import_kwh', Date.parse('2026-11-02T00:00:00Z'), Date.parse('2026-11-02T03:00:00Z'), 2, 200),
  );
  assert.equal(more.statusCode, 200, more.body);
  await tick(31_000);
  assert.equal((await ledger(GOOD, '2026-11-02')).totals.import_kwh, '12.000');
  assert.equal(sample(await scrape(svc), 'eps_job_unit_failures_total', 'kind="energy.refresh"'), 5, 'a quarantined unit is not tried at each run');

  // The operator fixes the data and releases the unit (what `cli job-units release` does): the next run folds it in.
  await unpoison();
  assert.equal(await svc.deps.jobUnits.release(svc.deps.backgroundDb, { kind: 'energy.refresh', orgId: BAD }), 1);
  await tick(31_000);
  bad = await ledger(BAD, '2026-11-01');
  assert.equal(bad.pending_refresh, false);
  assert.equal(bad.refresh_quarantine, null);
  assert.equal(sample(await scrape(svc), 'eps_job_units_quarantined', 'kind="energy.refresh"'), 0);
});

/** Runs the telemetry module's maintenance pass (partitions, sealing, resealing) and waits for it. */
async function maintain() {
  const m = svc.modules.find((x) => x.name === 'telemetry')!;
  await m.stop!();
  await m.start!({ operations: svc.operations });
  await m.stop!();
}

async function rollupCount(org: string, assetId: string, day: string): Promise<number | undefined> {
  // Slot 1 is battery/soc (telemetry metrics.ts).
  const r = await db().query<{ n1: number }>('select n1 from telemetry_rollup_daily where org_id = $1 and asset_id = $2 and day = $3', [org, assetId, day]);
  return r.rows[0]?.n1;
}

async function dailySoc(org: string) {
  const res = await call(svc, tokens[org]!, 'GET', '/api/telemetry/assets/battery/bat/history?range=daily&metric=soc');
  assert.equal(res.statusCode, 200, res.body);
  return json(res);
}

test("rollup sealing: a poisoned organisation's day is held out and quarantined while the others are sealed in the same pass", async () => {
  const day = '2026-11-02';
  for (const [org, soc] of [
    [GOOD, 40],
    [BAD, 60],
  ] as const) {
    const res = await call(svc, tokens[org]!, 'POST', '/api/telemetry/ingest', [
      { device_id: 'bat', ts: `${day}T08:00:00Z`, soc_pct: soc },
      { device_id: 'bat', ts: `${day}T09:00:00Z`, soc_pct: soc + 10 },
    ]);
    assert.equal(res.statusCode, 200, res.body);
  }
  // Two stored values whose sum overflows double precision: the day's rollup cannot hold them.
  for (const ts of [`${day}T10:00:00Z`, `${day}T10:01:00Z`]) {
    await db().query(`insert into telemetry (org_id, asset_id, ts, received_at, soc_pct, raw) values ($1, 'bat', $2, $2, 1.5e308, '{}'::jsonb)`, [BAD, ts]);
  }
  clock.set(new Date('2026-11-03T03:00:00Z'));
  await maintain();
  // The good organisation's day is sealed (the horizon moved past it), and its history answers.
  assert.equal(await rollupCount(GOOD, 'bat', `${day}T00:00:00Z`), 2);
  assert.equal((await dailySoc(GOOD)).summary.count, 2);
  assert.equal(await rollupCount(BAD, 'bat', `${day}T00:00:00Z`), undefined, 'nothing half-sealed for the poisoned organisation');

  // Retried at each pass (backoff), then quarantined; its history reads the day from the samples meanwhile.
  for (let i = 0; i < 5; i++) {
    clock.advance(3_600_000);
    await maintain();
  }
  const metrics = await scrape(svc);
  assert.equal(sample(metrics, 'eps_job_units_quarantined', 'kind="telemetry.seal"'), 1);
  assert.equal(sample(metrics, 'eps_job_unit_failures_total', 'kind="telemetry.seal"'), 5);
  const held = await svc.deps.jobUnits.status(svc.deps.backgroundDb, 'telemetry.seal', BAD);
  assert.deepEqual(
    held.map((u) => [u.key, u.error_class, u.quarantined_at !== null]),
    [[day, 'numeric_value_out_of_range', true]],
  );
  assert.equal(await rollupCount(BAD, 'bat', `${day}T00:00:00Z`), undefined);

  // The data fixed and the unit released: the next pass seals the organisation's whole day.
  await db().query(`delete from telemetry where org_id = $1 and soc_pct > 1e300`, [BAD]);
  assert.equal(await svc.deps.jobUnits.release(svc.deps.backgroundDb, { kind: 'telemetry.seal', orgId: BAD }), 1);
  clock.advance(3_600_000);
  await maintain();
  assert.equal(await rollupCount(BAD, 'bat', `${day}T00:00:00Z`), 2);
  assert.equal((await dailySoc(BAD)).summary.avg, 65);
  assert.equal(sample(await scrape(svc), 'eps_job_units_quarantined', 'kind="telemetry.seal"'), 0);
});

/**
 * Makes every write of these organisations' rows into `table` fail in the store (a data-dependent
 * failure, e.g. a value a column cannot hold); the returned function removes it.
 */
async function poison(table: string, orgs: string[]): Promise<() => Promise<void>> {
  const fn = `iso_poison_${table}`;
  const list = orgs.map((o) => `'${o}'`).join(', ');
  await db().query(
    `create or replace function ${fn}() returns trigger language plpgsql as $$
     begin
       if new.org_id in (${list}) then raise exception 'value out of range for this organisation' using errcode = '22003'; end if;
       return new;
     end $$`,
  );
  await db().query(`create trigger ${fn} before insert or update on ${table} for each row execute function ${fn}()`);
  return async () => {
    await db().query(`drop trigger ${fn} on ${table}`);
    await db().query(`drop function ${fn}()`);
  };
}

async function unitsOf(kind: string, org: string) {
  return (await svc.deps.jobUnits.status(svc.deps.backgroundDb, kind, org)).map((u) => ({
    key: u.key,
    error_class: u.error_class,
    quarantined: u.quarantined_at !== null,
  }));
}

/** Runs `runs` more passes of a schedule (moving the clock `stepMs` each), enough to spend a unit's attempts. */
async function spendAttempts(stepMs: number, runs = 5) {
  for (let i = 0; i < runs; i++) await tick(stepMs);
}

test("API key alerts (hourly): a poisoned organisation is quarantined while another organisation's alerts are raised in the same run", async () => {
  const DAY = 86_400_000;
  const keys: Record<string, { authorization: string }> = {};
  for (const org of [GOOD, BAD]) {
    const res = await call(svc, tokens[org]!, 'POST', '/api/devtools/apikeys', {
      name: 'feed',
      scopes: ['alerts:read'],
      expires_at: new Date(clock.now().getTime() + 20 * DAY).toISOString(),
    });
    assert.equal(res.statusCode, 201, res.body);
    keys[org] = { authorization: `Bearer ${json(res).secret}` };
  }
  const expiring = async (org: string) => {
    const res = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/alerts?limit=200', headers: keys[org]! });
    assert.equal(res.statusCode, 200, res.body);
    return json(res).alerts.filter((a: { type: string }) => a.type === 'partner_api_key_expiring');
  };
  const unpoison = await poison('org_alerts', [BAD]);
  try {
    await tick(7 * DAY); // within 14 days of expiry: the hourly sync raises the alert
    assert.equal((await expiring(GOOD)).length, 1);
    assert.deepEqual(await unitsOf('devtools.key-alerts', BAD), [{ key: '', error_class: 'numeric_value_out_of_range', quarantined: false }]);
    await spendAttempts(3_600_000, 4);
    assert.deepEqual(await unitsOf('devtools.key-alerts', BAD), [{ key: '', error_class: 'numeric_value_out_of_range', quarantined: true }]);
    assert.equal(sample(await scrape(svc), 'eps_job_units_quarantined', 'kind="devtools.key-alerts"'), 1);
  } finally {
    await unpoison();
  }
  assert.equal(await svc.deps.jobUnits.release(svc.deps.backgroundDb, { kind: 'devtools.key-alerts', orgId: BAD }), 1);
  await tick(3_600_000);
  assert.equal((await expiring(BAD)).length, 1, 'released and its data writable again: its alert is raised');
  assert.deepEqual(await unitsOf('devtools.key-alerts', BAD), []);
});

test("gateway watchdog (demo realm): a poisoned gateway is quarantined while another organisation's silent gateway is alerted in the same run", async () => {
  const DEMO_GOOD = 'demo-iso-good';
  const DEMO_BAD = 'demo-iso-bad';
  for (const org of [DEMO_GOOD, DEMO_BAD]) {
    await svc.createOrg(org);
    tokens[org] = await tokenFor(svc, org);
    await asset(svc, tokens[org]!, { asset_id: 'home-meter', site_id: 'home', asset_class: 'site_meter' });
    const hb = await call(svc, tokens[org]!, 'POST', '/api/hardware/ems/comms/home/heartbeat', { firmware: '1.0', buffer_depth: 0 });
    assert.equal(hb.statusCode, 200, hb.body);
  }
  const status = async (org: string) => json(await call(svc, tokens[org]!, 'GET', '/api/hardware/ems/comms/home/status'));
  const unpoison = await poison('org_alerts', [DEMO_BAD]);
  try {
    await tick(11 * 60_000); // past silent_after_s (600 s): the watchdog raises asset_silence
    const good = await status(DEMO_GOOD);
    assert.equal(good.recorded_state.state, 'silent');
    assert.equal(good.alert?.status, 'open');
    assert.deepEqual(await unitsOf('connect.gateway-watchdog', DEMO_BAD), [{ key: 'home', error_class: 'numeric_value_out_of_range', quarantined: false }]);
    await spendAttempts(10 * 60_000, 4);
    assert.deepEqual(await unitsOf('connect.gateway-watchdog', DEMO_BAD), [{ key: 'home', error_class: 'numeric_value_out_of_range', quarantined: true }]);
    assert.equal(sample(await scrape(svc), 'eps_job_units_quarantined', 'kind="connect.gateway-watchdog"'), 1);
  } finally {
    await unpoison();
  }
});

test("export-limitation loop (demo realm): a poisoned site is quarantined while another organisation's site iterates in the same tick", async () => {
  const DEMO_GOOD = 'demo-iso-good';
  const DEMO_BAD = 'demo-iso-bad';
  for (const org of [DEMO_GOOD, DEMO_BAD]) {
    const sc = await call(svc, tokens[org]!, 'POST', '/api/hardware/ems/control/demo/sites/farm/scenario', {
      load_kw: 0.5,
      pv_available_kw: 6,
      pv_rated_kw: 8,
      battery_soc_pct: 20,
    });
    assert.equal(sc.statusCode, 200, sc.body);
    const cfg = await call(svc, tokens[org]!, 'PUT', '/api/hardware/ems/control/sites/farm/config', {
      connection: { import_limit_kw: 20, export_limit_kw: 3.68, category: 'G99' },
      export_limitation: { enabled: true, limit_kw: 3 },
    });
    assert.equal(cfg.statusCode, 200, cfg.body);
  }
  const events = async (org: string) =>
    json(await call(svc, tokens[org]!, 'GET', '/api/hardware/ems/export-limit/farm/events?limit=200')).events.filter(
      (e: { trigger: string }) => e.trigger === 'schedule',
    );
  const before = { good: (await events(DEMO_GOOD)).length, bad: (await events(DEMO_BAD)).length };
  const unpoison = await poison('control_export_events', [DEMO_BAD]);
  try {
    await tick(30_000);
    assert.equal((await events(DEMO_GOOD)).length, before.good + 1, 'the other site iterated in the same tick');
    assert.equal((await events(DEMO_BAD)).length, before.bad);
    assert.deepEqual(await unitsOf('control.export-limit', DEMO_BAD), [{ key: 'farm', error_class: 'numeric_value_out_of_range', quarantined: false }]);
    await spendAttempts(10 * 60_000, 4);
    assert.deepEqual(await unitsOf('control.export-limit', DEMO_BAD), [{ key: 'farm', error_class: 'numeric_value_out_of_range', quarantined: true }]);
    assert.equal(sample(await scrape(svc), 'eps_job_units_quarantined', 'kind="control.export-limit"'), 1);
    assert.equal((await events(DEMO_BAD)).length, before.bad);
  } finally {
    await unpoison();
  }
});

test("energy rebuild (org lane: one job per organisation): the poisoned organisation's rebuild fails alone, with an error class, while another's completes in the same run", async () => {
  const unpoison = await poisonTelemetry(BAD, '2026-11-01', false);
  const ids: Record<string, string> = {};
  for (const org of [BAD, GOOD]) {
    const res = await call(svc, tokens[org]!, 'POST', '/api/telemetry/sites/depot/ledger/rebuild', { from: '2026-11-01', to: '2026-11-01' });
    assert.equal(res.statusCode, 202, res.body);
    ids[org] = json(res).rebuild_id;
  }
  await svc.runDue();
  const good = await ledger(GOOD, '2026-11-01');
  assert.deepEqual([good.rebuild.rebuild_id, good.rebuild.status], [ids[GOOD], 'completed']);
  assert.equal(good.totals.import_kwh, '12.000');
  assert.equal((await ledger(BAD, '2026-11-01')).rebuild.status, 'queued', 'retried by the queue with backoff');
  await spendAttempts(10 * 60_000);
  const bad = (await ledger(BAD, '2026-11-01')).rebuild;
  assert.deepEqual(
    [bad.rebuild_id, bad.status, bad.error],
    [ids[BAD], 'failed', 'numeric_value_out_of_range'],
    "the class of the failure, never the store's text",
  );
  await unpoison();
});

test("device.offline watchdog: a poisoned organisation is quarantined while another organisation's silent device is reported in the same scan", async () => {
  const rx = { good: await startReceiver([200]), bad: await startReceiver([200]) };
  const unpoison = await poison('device_offline_state', [BAD]);
  try {
    for (const [org, r] of [
      [GOOD, rx.good],
      [BAD, rx.bad],
    ] as const) {
      await registerEndpoint(svc, org, `${r.url}/h`, { event_types: ['device.offline'] });
      const res = await call(svc, tokens[org]!, 'POST', '/api/telemetry/ingest', [{ device_id: 'inv-1', ts: clock.now().toISOString(), power_kw: 1.5 }]);
      assert.equal(res.statusCode, 200, res.body);
    }
    await tick(35 * 60_000); // silent past 30 minutes: the 5-minute scan reports it
    await tick(60_000); // and the delivery job sends it
    assert.deepEqual(
      rx.good.requests.map((r) => JSON.parse(r.body).data.device.asset_id),
      ['inv-1'],
    );
    assert.equal(rx.bad.requests.length, 0);
    assert.deepEqual(await unitsOf('devtools.offline-watchdog', BAD), [{ key: '', error_class: 'numeric_value_out_of_range', quarantined: false }]);
    await spendAttempts(10 * 60_000, 4);
    assert.deepEqual(await unitsOf('devtools.offline-watchdog', BAD), [{ key: '', error_class: 'numeric_value_out_of_range', quarantined: true }]);
    assert.equal(sample(await scrape(svc), 'eps_job_units_quarantined', 'kind="devtools.offline-watchdog"'), 1);
  } finally {
    await unpoison();
    await rx.good.close();
    await rx.bad.close();
  }
});

test('a store outage is not held against the organisations: the run stops, no unit is recorded or quarantined', async () => {
  const { StoreUnavailableError } = await import('../../src/infra/db/index.ts');
  const ran: string[] = [];
  await assert.rejects(
    svc.deps.jobUnits.each(
      'test.outage',
      [GOOD, BAD],
      (orgId) => ({ orgId }),
      async (orgId) => {
        ran.push(orgId);
        throw new StoreUnavailableError('the store is unreachable');
      },
    ),
    StoreUnavailableError,
  );
  assert.deepEqual(ran, [GOOD], 'the run stopped at the outage');
  for (const org of [GOOD, BAD]) assert.deepEqual(await unitsOf('test.outage', org), []);
  // A failure of the unit's own data is recorded, and the next unit runs.
  const run = await svc.deps.jobUnits.each(
    'test.outage',
    [BAD, GOOD],
    (orgId) => ({ orgId }),
    async (orgId) => {
      if (orgId === BAD) throw Object.assign(new Error('numeric field overflow'), { code: '22003' });
    },
  );
  assert.deepEqual(run, { done: 1, failed: 1, skipped: 0 });
  assert.deepEqual(await unitsOf('test.outage', BAD), [{ key: '', error_class: 'numeric_value_out_of_range', quarantined: false }]);
});

test('energy refresh within the poisoned organisation: its other sites are folded in, only the poisoned site stays pending', async () => {
  await asset(svc, tokens[BAD]!, { asset_id: 'yard-meter', site_id: 'yard', asset_class: 'site_meter' });
  const unpoison = await poisonTelemetry(BAD, '2026-11-01');
  const day = new Date(clock.now().getTime() - 86_400_000).toISOString().slice(0, 10); // yesterday
  const sent = await call(
    svc,
    tokens[BAD]!,
    'POST',
    '/api/telemetry/ingest',
    counterSeries('yard-meter', 'import_kwh', Date.parse(`${day}T00:00:00Z`), Date.parse(`${day}T06:00:00Z`), 1),
  );
  assert.equal(sent.statusCode, 200, sent.body);
  await tick(31_000);
  const yard = json(await call(svc, tokens[BAD]!, 'GET', `/api/telemetry/sites/yard/ledger?date=${day}`));
  assert.deepEqual([yard.totals.import_kwh, yard.pending_refresh, yard.refresh_quarantine], ['12.000', false, null]);
  assert.equal((await ledger(BAD, '2026-11-01')).pending_refresh, true);
  assert.deepEqual(await unitsOf('energy.refresh', BAD), [{ key: '', error_class: 'numeric_value_out_of_range', quarantined: false }]);
  await unpoison();
  await tick(3_600_000); // past its backoff: the unit is retried and succeeds
  assert.equal((await ledger(BAD, '2026-11-01')).pending_refresh, false);
  assert.deepEqual(await unitsOf('energy.refresh', BAD), []);
});
