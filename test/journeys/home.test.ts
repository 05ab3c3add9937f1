// Journey: a home with PV and a battery lives Tuesday 24 November 2026 (GMT, so UK time is UTC)
// through HTTP and real protocol peers (an SMTP server, an HTTPS webhook receiver). Each step checks
// the figures handed on to the next against what the test worked out itself from what it sent:
//   connect (template, proposal, confirmation) → telemetry (gateway heartbeats, ingestion) →
//   energy ledger (to the watt-hour against an independent integration) → EMS alert (£/day worked
//   by hand) routed to a person by e-mail and to a signed HTTPS webhook → retail tariff bill of the
//   ledger's import (to the penny against a hand-worked bill) → forecast and a battery schedule
//   priced by that tariff, within the battery's registered limits → exports (CSV and JSON) equal to
//   the ledger; and a second organisation sees none of it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { startSmtp, smtpEnv, newSecret, type Mailbox } from '../ems-alerts/helpers.ts';
import { verifySignature } from '../devtools/helpers.ts';
import { verifyWebhook } from '../../packages/sdk/src/verify-webhook.ts';
import { assertRefused } from '../helpers/refusal.ts';
import {
  client,
  clockOf,
  dec,
  gbpOfPence,
  HH,
  integrate,
  iso,
  kwhText,
  LONG,
  MIN,
  mul,
  parseCsv,
  penniesToGbp,
  pence,
  startHttpsReceiver,
  wh,
  whOf,
  type Client,
  type HttpsReceiver,
  type Sample,
} from './helpers.ts';

const ORG = 'journey-home';
const OTHER = 'journey-home-other';
const SITE = 'home';
const DAY = Date.parse('2026-11-24T00:00:00Z'); // a Tuesday, GMT
const END = DAY + 86_400_000;
const METER = 'EM-HOME-0042';
const PV = 'SE-INV-HOME';
const BATT = 'GIV-BATT-HOME';
const BATTERY_LIMITS = { capacity_kwh: 5.2, max_power_kw: 2.4, min_soc_pct: 10, max_soc_pct: 90 };
const PV_KWP = 8;

let svc: TestService;
let mail: Mailbox;
let hook: HttpsReceiver;
let me: Client;
let them: Client;

before(async () => {
  mail = await startSmtp();
  hook = await startHttpsReceiver(204);
  svc = await startTestService({ clock: new ManualClock('2026-11-23T12:00:00.000Z'), env: smtpEnv(mail) });
  await svc.createOrg(ORG, ['ems/routing']);
  await svc.createOrg(OTHER, ['ems/routing']);
  me = client(svc, await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], expiresIn: LONG }));
  them = client(svc, await svc.token({ orgId: OTHER, roles: ['ORG_ADMIN'], expiresIn: LONG }));
});
after(async () => {
  await svc?.stop();
  await mail?.close();
  await hook?.close();
});

// ---- The day the home lives, every 5 minutes (powers are multiples of 0.024 kW, so each 5-minute
// trapezoid is a whole number of watt-hours; the meter's zero crossings fall between samples and are
// split as the energy model says).
const STEP = 5 * MIN;
const minuteOf = (t: number) => (t - DAY) / MIN;
/** PV: a triangle from 08:00 to 16:00 peaking at -3.456 kW at noon (export/generation negative). */
const pvKw = (t: number) => {
  const m = minuteOf(t);
  return m <= 480 || m >= 960 ? 0 : -Math.round(3.456 * (1 - Math.abs(m - 720) / 240) * 1000) / 1000;
};
/** Battery: charges 0.96 kW 10:00-13:00 from the PV, discharges 1.2 kW 16:00-19:00 (the peak band). */
const batKw = (t: number) => {
  const m = minuteOf(t);
  return m >= 600 && m < 780 ? 0.96 : m >= 960 && m < 1140 ? -1.2 : 0;
};
/** House load: 0.384 kW, 1.2 kW 07:00-09:00 and 16:00-19:00, 2.016 kW 19:00-21:00. */
const loadKw = (t: number) => {
  const m = minuteOf(t);
  return (m >= 420 && m < 540) || (m >= 960 && m < 1140) ? 1.2 : m >= 1140 && m < 1260 ? 2.016 : 0.384;
};
const meterKw = (t: number) => Math.round((loadKw(t) + batKw(t) + pvKw(t)) * 1000) / 1000;
const instants: number[] = [];
for (let t = DAY; t <= END; t += STEP) instants.push(t);
const series = (f: (t: number) => number): Sample[] => instants.map((t) => ({ t, kw: f(t) }));
// The battery's state of charge as it would report it: 30 % at midnight, then its own energy.
const socAt = new Map<number, number>();
{
  let kwh = 0.3 * BATTERY_LIMITS.capacity_kwh;
  for (let i = 0; i < instants.length; i++) {
    if (i > 0) kwh += ((batKw(instants[i - 1]) + batKw(instants[i])) / 2) * (STEP / 3_600_000);
    socAt.set(instants[i], Math.round((kwh / BATTERY_LIMITS.capacity_kwh) * 1000) / 10);
  }
}

/** Expected ledger per half hour in integer Wh, from the samples alone. */
function expectedLedger() {
  const m = integrate(series(meterKw));
  const p = integrate(series(pvKw));
  const b = integrate(series(batKw));
  const rows = [];
  for (let s = DAY; s < END; s += HH) {
    const imp = wh(m.get(s)?.pos ?? 0);
    const exp = wh(m.get(s)?.neg ?? 0);
    const gen = wh(p.get(s)?.neg ?? 0);
    const chg = wh(b.get(s)?.pos ?? 0);
    const dis = wh(b.get(s)?.neg ?? 0);
    rows.push({ start: iso(s), imp, exp, gen, chg, dis, con: gen + imp + dis - exp - chg });
  }
  return rows;
}
const EXPECTED = expectedLedger();
const total = (k: 'imp' | 'exp' | 'gen' | 'chg' | 'dis' | 'con') => EXPECTED.reduce((s, r) => s + r[k], 0);

test('a home with PV and a battery: onboarding → a day of telemetry → ledger → alert by e-mail and HTTPS webhook → bill → schedule → exports; another organisation sees none of it', async () => {
  const clock = clockOf(svc);

  // ---- 1. Connect: the devices report before any record exists; the template proposes, a person confirms.
  const t0 = clock.now().toISOString();
  await me.ok('POST', '/api/telemetry/ingest', [
    { device_id: METER, site_ref: SITE, asset_type: 'smart_meter', ts: t0, power_kw: 0.4 },
    { device_id: PV, site_ref: SITE, asset_type: 'solar_inverter', ts: t0, power_kw: -1.0 },
    { device_id: BATT, site_ref: SITE, asset_type: 'battery', ts: t0, power_kw: 0, soc_pct: 30 },
  ]);
  const created = await me.ok('POST', '/api/hardware/sites/from-template', { template_id: 'gb-home-pv-battery', site_id: SITE }, 201);
  const proposed = Object.fromEntries(created.run.proposal.entries.map((e: { slot: string; device_id: string }) => [e.slot, e.device_id]));
  assert.deepEqual(proposed, { meter: METER, pv_inverter: PV, battery: BATT });
  clock.advance(120_000);
  // docs/connect.md: "with no body confirms the proposal" (issue 36 item 4: `{}` is sent until an absent body is accepted).
  const confirmed = await me.ok('POST', `/api/hardware/sites/${SITE}/confirm-mapping`, {});
  assert.equal(confirmed.status, 'confirmed');
  assert.equal(confirmed.elapsed_seconds, 120);
  assert.deepEqual(
    confirmed.mapping.map((m: { asset_id: string }) => m.asset_id),
    [METER, PV, BATT],
  );
  // The installer records the nameplates the alerts and the schedule rely on.
  await me.ok('PATCH', `/api/twin/registry/assets/${PV}`, { details: { capacity_kwp: PV_KWP } });
  await me.ok('PATCH', `/api/twin/registry/assets/${BATT}`, { details: BATTERY_LIMITS });
  const assets = (await me.ok('GET', `/api/twin/registry/assets?site_id=${SITE}`)).assets;
  const cls = Object.fromEntries(
    assets.map((a: { asset_id: string; asset_class: string; parent_asset_id: string | null }) => [a.asset_id, `${a.asset_class}<${a.parent_asset_id}`]),
  );
  assert.deepEqual(cls, { [METER]: 'smart_meter<null', [PV]: `inverter<${METER}`, [BATT]: `battery<${PV}` });

  // ---- 2. Telemetry: the gateway heartbeats and uploads every six hours.
  for (let block = 0; block < 4; block++) {
    const from = DAY + block * 6 * 3_600_000;
    const to = block === 3 ? END + 1 : from + 6 * 3_600_000;
    clock.set(Math.min(to, END) + 10_000);
    const hb = await me.ok('POST', `/api/hardware/ems/comms/${SITE}/heartbeat`, { gateway_id: 'gw-home', firmware: '2.4.1', buffer_depth: 0 });
    assert.equal(hb.state, 'online');
    const records = instants
      .filter((t) => t >= from && t < to)
      .flatMap((t) => [
        { device_id: METER, ts: iso(t), power_kw: meterKw(t) },
        { device_id: PV, ts: iso(t), power_kw: pvKw(t) },
        { device_id: BATT, ts: iso(t), power_kw: batKw(t), soc_pct: socAt.get(t) },
      ]);
    const stored = await me.ok('POST', '/api/telemetry/ingest', records);
    assert.equal(stored.stored, records.length);
  }
  clock.advance(31_000);
  await svc.runDue();

  // ---- 3. Energy ledger to the watt-hour against the test's own integration.
  const ledger = await me.ok('GET', `/api/telemetry/sites/${SITE}/ledger?date=2026-11-24`);
  assert.equal(ledger.pending_refresh, false);
  assert.equal(ledger.half_hours.length, 48);
  const got = ledger.half_hours.map((h: Record<string, string>) => ({
    start: h.period_start,
    imp: whOf(h.import_kwh),
    exp: whOf(h.export_kwh),
    gen: whOf(h.generation_kwh),
    chg: whOf(h.charge_kwh),
    dis: whOf(h.discharge_kwh),
    con: whOf(h.consumption_kwh),
  }));
  assert.deepEqual(got, EXPECTED);
  for (const h of ledger.half_hours) {
    assert.equal(h.gap, false, `${h.period_start} complete`);
    assert.equal(h.consumption_method, 'derived');
    assert.equal(h.residual_kwh, '0.000');
  }
  assert.equal(ledger.totals.import_kwh, kwhText(total('imp')));
  assert.equal(ledger.totals.export_kwh, kwhText(total('exp')));
  assert.equal(ledger.totals.generation_kwh, kwhText(total('gen')));
  assert.equal(ledger.totals.charge_kwh, kwhText(total('chg')));
  assert.equal(ledger.totals.discharge_kwh, kwhText(total('dis')));
  assert.equal(ledger.totals.consumption_kwh, kwhText(total('con')));
  assert.equal(ledger.totals.generation_kwh, '13.824', 'the PV triangle: 3.456 kW × 8 h / 2');
  assert.equal(ledger.totals.gap_half_hours, 0);
  assert.equal(ledger.balance.balances, true);
  // One half hour's lineage: each asset's contribution, integrated from power.
  const noon = await me.ok('GET', `/api/telemetry/ledger/period/${SITE}/2026-11-24T12:00:00.000Z`);
  const row12 = EXPECTED[24];
  const contrib = (asset: string, flow: string) =>
    whOf(noon.contributions.find((c: { asset_id: string; flow: string }) => c.asset_id === asset && c.flow === flow)?.kwh);
  assert.deepEqual([contrib(PV, 'generation'), contrib(BATT, 'charge'), contrib(METER, 'export')], [row12.gen, row12.chg, row12.exp]);

  // Site energy reads the same ledger: self-consumed = Σ max(generation − export, 0) per half hour;
  // the battery's throughput and cycles against its registered 5.2 kWh.
  const selfConsumedWh = EXPECTED.reduce((a, r) => a + Math.max(r.gen - r.exp, 0), 0);
  const sc = await me.ok('GET', `/api/telemetry/sites/${SITE}/self-consumption?date=2026-11-24`);
  assert.deepEqual(
    [sc.generation_kwh, sc.export_kwh, sc.import_kwh, sc.consumption_kwh, sc.self_consumed_kwh],
    [kwhText(total('gen')), kwhText(total('exp')), kwhText(total('imp')), kwhText(total('con')), kwhText(selfConsumedWh)],
  );
  assert.equal(sc.self_consumption_ratio, Math.round((selfConsumedWh / total('gen')) * 1e4) / 1e4);
  const bs = await me.ok('GET', `/api/telemetry/sites/${SITE}/battery/state?date=2026-11-24`);
  assert.deepEqual(
    [bs.capacity_kwh, bs.capacity_source, bs.charge_kwh, bs.discharge_kwh, bs.throughput_kwh],
    [BATTERY_LIMITS.capacity_kwh, 'asset_details', kwhText(total('chg')), kwhText(total('dis')), kwhText(total('chg') + total('dis'))],
  );
  assert.equal(bs.equivalent_full_cycles, Math.round(((total('chg') + total('dis')) / 1000 / 2 / BATTERY_LIMITS.capacity_kwh) * 100) / 100);
  assert.equal(bs.batteries[0].soc_pct, socAt.get(END));

  // ---- 4. EMS alert (pv_underperformance) routed to a person by e-mail and to a signed HTTPS webhook.
  const secret = newSecret();
  const rule = await me.ok(
    'POST',
    '/api/hardware/ems/routing/rules',
    {
      name: 'PV below expectation',
      match: { sources: ['pv_underperformance'] },
      channels: [
        { type: 'email', to: 'owner@home.test' },
        { type: 'webhook', url: `${hook.url}/ems`, secret },
      ],
    },
    201,
  );
  clock.set(END + 5 * MIN);
  const ev = await me.ok('POST', '/api/hardware/ems/alerts/evaluate');
  // By hand (docs/alerts.md): the window is the 48 whole half hours to now (the day); measured
  // generation is the ledger's (checked above against the test's own integration, decision 0320);
  // expected 8 kWp × 2.5 kWh/kWp = 20 kWh; 80 % of it is 16.
  const measuredMicro = total('gen') * 1000;
  const shortfallMicro = 20_000_000 - measuredMicro;
  const impactGbp = penniesToGbp(mul((shortfallMicro / 1e6).toFixed(6), '24.50'));
  assert.ok(measuredMicro < 16_000_000);
  assert.deepEqual(
    ev.raised.map((a: { source: string; asset_id: string }) => `${a.source}:${a.asset_id}`),
    [`pv_underperformance:${PV}`],
    'nothing else is wrong with this home',
  );
  const alert = ev.raised[0];
  assert.equal(alert.impact_gbp_per_day, impactGbp);
  assert.equal(alert.site_id, SITE);
  assert.deepEqual(ev.routing.deliveries.map((d: { channel_type: string; outcome: string }) => `${d.channel_type}:${d.outcome}`).sort(), [
    'email:delivered',
    'webhook:delivered',
  ]);
  assert.equal(mail.messages.length, 1);
  const m = mail.messages[0];
  assert.deepEqual(m.to, ['owner@home.test']);
  assert.equal(m.mail.subject, `[EMS ${alert.severity}] £${impactGbp}/day: ${alert.title}`);
  assert.match(m.mail.text ?? '', new RegExp(`Impact: £${impactGbp.replace('.', '\\.')} per day`));
  assert.equal(m.mail.headers.get('x-platform-alert-id'), alert.id);
  await hook.received(1, 'the emsAlertRouted webhook');
  const h = hook.requests[0];
  assert.equal(h.url, '/ems');
  assert.ok(
    verifySignature(String(h.headers['platform-signature']), h.body, secret, Math.floor(clock.now().getTime() / 1000)),
    'signature verified independently',
  );
  const event = verifyWebhook<{ alert: { id: string; impact_gbp_per_day: string }; rule: { id: string } }>({
    body: h.body,
    signature: h.headers['platform-signature'],
    secret,
    now: clock.now(),
  });
  assert.equal(event.type, 'emsAlertRouted');
  assert.equal(event.organisation_id, ORG);
  assert.deepEqual([event.data.alert.id, event.data.alert.impact_gbp_per_day, event.data.rule.id], [alert.id, impactGbp, rule.id]);

  // ---- 5. Pricing: the ledger's import billed on a time-of-use retail tariff.
  const tariff = await me.ok(
    'POST',
    '/api/trading/retail-tariffs',
    {
      name: 'Home E7',
      supply_type: 'domestic',
      version: {
        effective_from: '2026-11-01',
        vat_rate_percent: '5',
        standing_charge_p_per_day: '48.79',
        unit_rates: {
          type: 'time_of_use',
          rates: { night: '7.50', day: '27.03' },
          periods: [
            { band: 'night', days: 'all', from: '00:00', to: '07:00' },
            { band: 'day', days: 'all', from: '07:00', to: '24:00' },
          ],
        },
      },
    },
    201,
  );
  const consumption = ledger.half_hours.map((h: { period_start: string; import_kwh: string }) => ({ start: h.period_start, kwh: h.import_kwh }));
  const bill = await me.ok('POST', '/api/trading/retail-tariffs/bill', { tariff_id: tariff.tariff_id, from: '2026-11-24', to: '2026-11-25', consumption });
  // Hand-worked: night = the import of the 14 half hours before 07:00, day = the other 34.
  const nightWh = EXPECTED.slice(0, 14).reduce((s, r) => s + r.imp, 0);
  const dayWh = EXPECTED.slice(14).reduce((s, r) => s + r.imp, 0);
  const standing = penniesToGbp(dec('48.79'));
  const night = penniesToGbp(mul(kwhText(nightWh), '7.50'));
  const day = penniesToGbp(mul(kwhText(dayWh), '27.03'));
  const net = pence(standing) + pence(night) + pence(day);
  const vat = penniesToGbp(mul(gbpOfPence(net), '5'));
  const lines = Object.fromEntries(
    bill.lines.map((l: { band: string | null; amount_gbp: string; quantity: string }) => [l.band ?? 'standing', [l.quantity, l.amount_gbp]]),
  );
  assert.deepEqual(lines, { standing: ['1', standing], night: [String(Number(kwhText(nightWh))), night], day: [String(Number(kwhText(dayWh))), day] });
  assert.equal(bill.totals.kwh, String(Number(kwhText(total('imp')))), 'the bill bills the ledger import, no more, no less');
  assert.equal(bill.totals.net_gbp, gbpOfPence(net));
  assert.equal(bill.totals.vat_gbp, vat);
  assert.equal(bill.totals.total_gbp, gbpOfPence(net + pence(vat)));
  assert.deepEqual(bill.coverage, { half_hours_expected: 48, half_hours_present: 48, half_hours_missing: 0, first_missing: [] });

  // ---- 6. Forecast and a schedule for Wednesday priced by that tariff, within the battery's registered limits.
  const fc = await me.ok('GET', `/api/optimiser/forecasting/sites/${SITE}/forecast`);
  const battery = await me.ok('GET', `/api/twin/registry/assets/${BATT}`);
  const limits = battery.details;
  assert.deepEqual(limits, BATTERY_LIMITS);
  const lastSoc = bs.batteries[0].soc_pct; // the battery's latest state of charge, as site energy shows it
  const plan = await me.ok('POST', `/api/optimiser/tariff-schedule/${SITE}/run`, {
    start: iso(END),
    hours: 24,
    export_p_per_kwh: 15,
    prices: { source: 'retail_tariff', tariff_id: tariff.tariff_id },
    batteries: [
      {
        device_id: BATT,
        capacity_kwh: limits.capacity_kwh,
        max_charge_kw: limits.max_power_kw,
        max_discharge_kw: limits.max_power_kw,
        min_soc_pct: limits.min_soc_pct,
        max_soc_pct: limits.max_soc_pct,
        initial_soc_pct: lastSoc,
      },
    ],
  });
  assert.equal(plan.half_hour_plan.length, 48);
  assert.match(plan.site_forecast, /^persistence/);
  const minKwh = (limits.capacity_kwh * limits.min_soc_pct) / 100;
  const maxKwh = (limits.capacity_kwh * limits.max_soc_pct) / 100;
  assert.deepEqual(
    [plan.batteries[0].min_soc_kwh, plan.batteries[0].max_soc_kwh, plan.batteries[0].initial_soc_kwh],
    [minKwh, maxKwh, Math.round(limits.capacity_kwh * lastSoc * 10) / 1000],
  );
  for (const [i, hh] of plan.half_hour_plan.entries()) {
    const d = hh.devices[0];
    assert.ok(Math.abs(d.power_kw) <= limits.max_power_kw + 1e-9, `half hour ${i}: ${d.power_kw} kW within ±${limits.max_power_kw}`);
    assert.ok(d.soc_kwh >= minKwh - 0.0005 && d.soc_kwh <= maxKwh + 0.0005, `half hour ${i}: ${d.soc_kwh} kWh within [${minKwh}, ${maxKwh}]`);
    // The tariff's unit rate including VAT, by UK time band: 7.50 × 1.05 before 07:00, 27.03 × 1.05 after.
    assert.equal(Number(hh.import_p_per_kwh), i < 14 ? 7.875 : 28.3815, `half hour ${i} price`);
  }
  // The forecast handed to the optimiser: Tuesday carried forward, every half hour present.
  assert.equal(fc.half_hours.filter((x: { load_kwh: number | null }) => x.load_kwh === null).length, 0, 'no half hour of the forecast is empty');
  const charged = plan.half_hour_plan
    .slice(0, 14)
    .reduce((s: number, x: { devices: { power_kw: number }[] }) => s + Math.max(0, x.devices[0].power_kw) * 0.5, 0);
  assert.ok(charged > 0, 'the battery recharges in the cheap night band');
  // The registry's capacity bounds the plan: ten times it is refused (decision 0316).
  const oversized = await me.call('POST', `/api/optimiser/tariff-schedule/${SITE}/run`, {
    start: iso(END),
    hours: 24,
    prices: { source: 'retail_tariff', tariff_id: tariff.tariff_id },
    batteries: [{ device_id: BATT, capacity_kwh: limits.capacity_kwh * 10, max_charge_kw: limits.max_power_kw, initial_soc_pct: 50 }],
  });
  assertRefused(oversized, 422, { fields: ['body.batteries.0.capacity_kwh'] });

  // ---- 7. Exports: the EMS interval export (JSON and CSV) and the organisation export equal the ledger.
  const interval = await me.ok('GET', `/api/hardware/ems/exports/interval?site_id=${SITE}&date=2026-11-24`);
  const intervalCsv = parseCsv(await me.ok('GET', `/api/hardware/ems/exports/interval.csv?site_id=${SITE}&date=2026-11-24`));
  for (const rows of [interval.rows, intervalCsv]) {
    assert.equal(rows.length, 48);
    assert.deepEqual(
      rows.map((r: Record<string, string>) => ({
        start: r.period_start,
        imp: whOf(r.import_kwh),
        exp: whOf(r.export_kwh),
        gen: whOf(r.generation_kwh),
        chg: whOf(r.charge_kwh),
        dis: whOf(r.discharge_kwh),
        con: whOf(r.consumption_kwh),
      })),
      EXPECTED,
    );
  }
  const job = await me.ok('POST', '/api/organisations/export', { collections: ['energy.site_half_hours'], from: iso(DAY), to: iso(END), format: 'csv' }, 202);
  for (let i = 0; i < 5; i++) {
    await svc.runDue();
    if ((await me.ok('GET', `/api/organisations/export/jobs/${job.job_id}`)).status === 'completed') break;
    clock.advance(1_000);
  }
  const exportCsv = parseCsv(await me.ok('GET', `${job.collection_paths['energy.site_half_hours']}?format=csv`));
  const bySlot = new Map(exportCsv.filter((r) => r.site_id === SITE).map((r) => [new Date(r.slot).toISOString(), r]));
  assert.equal(bySlot.size, 48);
  for (const e of EXPECTED) {
    const r = bySlot.get(e.start)!;
    assert.deepEqual(
      {
        start: e.start,
        imp: whOf(r.import_kwh),
        exp: whOf(r.export_kwh),
        gen: whOf(r.generation_kwh),
        chg: whOf(r.charge_kwh),
        dis: whOf(r.discharge_kwh),
        con: whOf(r.consumption_kwh),
      },
      e,
    );
  }

  // ---- 8. Another organisation sees none of it.
  assertRefused(await them.call('GET', `/api/telemetry/sites/${SITE}/ledger?date=2026-11-24`), 404, 'Site not found');
  assertRefused(await them.call('GET', `/api/telemetry/ledger/period/${SITE}/2026-11-24T12:00:00.000Z`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/twin/registry/assets/${BATT}`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/trading/retail-tariffs/${tariff.tariff_id}`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/optimiser/tariff-schedule/${SITE}/runs/${plan.run_id}`), 404, 'Site not found');
  assertRefused(await them.call('GET', `/api/optimiser/forecasting/sites/${SITE}/forecast`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/hardware/ems/exports/interval?site_id=${SITE}&date=2026-11-24`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/organisations/export/jobs/${job.job_id}`), 404, /not found/i);
  assertRefused(await them.call('GET', `/api/hardware/ems/comms/${SITE}/status`), 404, /not found/i);
  assert.equal((await them.ok('GET', '/api/hardware/ems/alerts')).count, 0);
  assert.deepEqual((await them.ok('GET', '/api/hardware/ems/routing/deliveries')).deliveries, []);
  assert.deepEqual((await them.ok('GET', '/api/hardware/ems/routing/rules')).rules, []);
  assert.deepEqual((await them.ok('GET', '/api/hardware/sites/onboarding/runs')).runs, []);
  const manifest = await them.ok('GET', '/api/organisations/export/manifest');
  for (const c of manifest.collections) assert.equal(c.row_count, 0, `${c.name} holds nothing of ours`);
});

// One figure, one source (decision 0326): what forecasting calls the actual load and generation of
// a half hour is the energy ledger's consumption and generation, to the watt-hour. Before, it
// worked them out itself as the mean of the samples × 0.5 h: 16 half hours of generation and 5 of
// load differed (08:00 generation 0.090 against the ledger's 0.108 kWh, 20:30 load 1.008 against 0.940).
test("forecast-vs-actual shows the ledger's consumption and generation as the actuals", async () => {
  const fva = await me.ok('GET', `/api/optimiser/forecasting/sites/${SITE}/forecast-vs-actual?from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z`);
  assert.equal(fva.half_hours.length, 48);
  assert.deepEqual(
    fva.half_hours.map((h: { start: string; load_actual_kwh: number; generation_actual_kwh: number }) => [
      h.start,
      Math.round(h.load_actual_kwh * 1000),
      Math.round(h.generation_actual_kwh * 1000),
    ]),
    EXPECTED.map((e) => [e.start, e.con, e.gen]),
  );
});
