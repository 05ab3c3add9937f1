// Pricing benchmark (issue 17; prints figures, never pass/fail). A year of half hours (17,520) at
// one MPAN: the pricing engine (red/amber/green DUoS, fixed and capacity charges, BSUoS, CfD, RO,
// FiT, CCL) and a year's bill on a flat, a time-of-use and a dynamic (Agile-style) tariff; first
// in process (the engine alone), then through HTTP on the embedded store (JSON in and out,
// validation, the library read). The machine is shared: the load average is printed with the figures,
// and in-process runs also print the CPU time the process used (wall time under a load of 15 on two
// cores mostly measures waiting for a core; CPU time is close to what an idle machine takes).
//
//   npm run bench:pricing            # options: --runs=20
import { machine, summary, fmt } from './lib/stats.ts';
import { libraryAt, priceHalfHours, type LibRate, type LibSchedule, type SupplyPoint } from '../src/modules/pricing/engine.ts';
import { billTariff, compileVersions } from '../src/modules/pricing/billing.ts';
import type { VersionTerms } from '../src/modules/pricing/terms.ts';
import { slotsInDay, ukMidnight } from '../src/kit/uk-time.ts';
import { startTestService } from '../test/helpers/service.ts';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const RUNS = Number(args.runs ?? 20);
const log = (...a: unknown[]) => console.log(...a);
const HH = 1800_000;
const FROM = '2026-04-01';
const TO = '2027-04-01';

const rate = (component: string, r: string, extra: Partial<LibRate> = {}): LibRate => ({
  rate_id: `${component}-${extra.band ?? ''}`,
  component,
  rate: r,
  distributor_id: null,
  line_loss_class: null,
  supply_type: null,
  band: null,
  valid_from: FROM,
  valid_to: TO,
  source: 'bench',
  origin: 'organisation',
  ...extra,
});
const RATES: LibRate[] = [
  rate('duos_unit', '10.5', { distributor_id: '14', band: 'red' }),
  rate('duos_unit', '1.2', { distributor_id: '14', band: 'amber' }),
  rate('duos_unit', '0.15', { distributor_id: '14', band: 'green' }),
  rate('duos_fixed', '25', { distributor_id: '14' }),
  rate('duos_capacity', '3.5', { distributor_id: '14' }),
  rate('tnuos', '120'),
  rate('bsuos', '1.3'),
  rate('cfd', '0.8'),
  rate('ro', '3.1'),
  rate('fit', '0.6'),
  rate('ccl', '0.801'),
  rate('vat', '20'),
];
const PERIODS = [
  { band: 'green', days: 'weekdays' as const, from: '00:00', to: '07:30' },
  { band: 'amber', days: 'weekdays' as const, from: '07:30', to: '16:00' },
  { band: 'red', days: 'weekdays' as const, from: '16:00', to: '19:00' },
  { band: 'amber', days: 'weekdays' as const, from: '19:00', to: '21:00' },
  { band: 'green', days: 'weekdays' as const, from: '21:00', to: '24:00' },
  { band: 'green', days: 'weekends' as const, from: '00:00', to: '24:00' },
];
const SCHEDULES: LibSchedule[] = [{ schedule_id: 's', distributor_id: '14', valid_from: FROM, valid_to: TO, periods: PERIODS, source: 'bench' }];
const MPAN: SupplyPoint = { mpan_core: '1412345678901', distributor_id: '14', line_loss_class: '501', supply_type: 'business', agreed_capacity_kva: '100' };

const year: { t: number; kwh: bigint }[] = [];
for (let t = ukMidnight(FROM), i = 0; t < ukMidnight(TO); t += HH, i++) year.push({ t, kwh: BigInt(250_000 + ((i * 7919) % 1_500_000)) });
const prices = new Map(year.map((h, i) => [h.t, BigInt(5_000_000 + ((i * 104729) % 30_000_000))]));

function time(label: string, fn: () => unknown) {
  fn(); // warm
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    fn();
    const d = process.cpuUsage(c);
    ms.push(performance.now() - t);
    cpu.push((d.user + d.system) / 1000);
  }
  const s = summary(ms);
  const c = summary(cpu);
  log(`${label.padEnd(58)} wall p50 ${fmt(s.p50, 1)} ms  p95 ${fmt(s.p95, 1)} ms | cpu p50 ${fmt(c.p50, 1)} ms  p95 ${fmt(c.p95, 1)} ms  (${s.n} runs)`);
}

async function main() {
  log(`machine: ${await machine()}`);
  log(`half hours in the year ${FROM} to ${TO}: ${fmt(year.length)}`);
  log('-- in process --');
  time('price a year at one MPAN, every half hour broken down', () =>
    priceHalfHours(MPAN, libraryAt(MPAN, RATES, SCHEDULES), year, { detail: true, slotsInDay }),
  );
  time('price a year at one MPAN, totals only', () => priceHalfHours(MPAN, libraryAt(MPAN, RATES, SCHEDULES), year, { detail: false, slotsInDay }));
  const terms = (unit: VersionTerms['unit_rates']): VersionTerms => ({
    effective_from: FROM,
    effective_to: null,
    vat_rate_percent: '5',
    standing_charge_p_per_day: '53.35',
    unit_rates: unit,
  });
  const billOf = (unit: VersionTerms['unit_rates']) => () =>
    billTariff({
      tariff: { tariff_id: 't', name: 'T' },
      versions: compileVersions([{ version: 1, effective_from: FROM, effective_to: null, terms: terms(unit) }]),
      consumption: year,
      prices,
      from: FROM,
      to: TO,
    });
  time('bill a year, flat tariff', billOf({ type: 'flat', rate_p_per_kwh: '24.5' }));
  time('bill a year, time of use (red/amber/green bands)', billOf({ type: 'time_of_use', rates: { red: '40', amber: '25', green: '12' }, periods: PERIODS }));
  time('bill a year, dynamic (a price every half hour)', billOf({ type: 'dynamic' }));

  log('-- through HTTP on the embedded store (JSON in and out, validation, library read) --');
  const svc = await startTestService();
  await svc.createOrg('bench-pricing');
  const token = await svc.token({ orgId: 'bench-pricing', roles: ['OPERATOR'] });
  const call = (url: string, payload: object) => svc.request({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
  await call('/api/trading/cost/mpans', {
    mpan_core: MPAN.mpan_core,
    line_loss_class: '501',
    connection_voltage: 'HV',
    supply_type: 'business',
    agreed_capacity_kva: '100',
  });
  await call('/api/trading/cost/library/time-bands', { distributor_id: '14', valid_from: FROM, valid_to: TO, periods: PERIODS, source: 'bench' });
  for (const r of RATES) {
    const { rate_id: _i, origin: _o, ...body } = r;
    const unit = { duos_unit: 'p/kWh', duos_fixed: 'p/day', duos_capacity: 'p/kVA/day', tnuos: 'p/day', vat: 'percent' }[r.component] ?? 'p/kWh';
    if (r.component === 'ccl') continue; // published from 1 April 2026
    const res = await call('/api/trading/cost/library/rates', {
      ...body,
      unit,
      distributor_id: r.distributor_id ?? undefined,
      band: r.band ?? undefined,
      line_loss_class: undefined,
      supply_type: undefined,
    });
    if (res.statusCode !== 201) throw new Error(res.body);
  }
  const halfHours = year.map((h) => ({ start: new Date(h.t).toISOString(), kwh: (Number(h.kwh) / 1e6).toFixed(6) }));
  const tariff = await call('/api/trading/retail-tariffs', { name: 'Bench', supply_type: 'domestic', version: terms({ type: 'dynamic' }) });
  const tariffId = JSON.parse(tariff.body).tariff_id;
  const priceList = year.map((h) => ({ start: new Date(h.t).toISOString(), rate_p_per_kwh: (Number(prices.get(h.t)!) / 1e6).toFixed(6) }));
  const httpTime = async (label: string, url: string, payload: object) => {
    const ms: number[] = [];
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i <= Math.min(RUNS, 10); i++) {
      const t = performance.now();
      const c = process.cpuUsage();
      const res = await call(url, payload);
      const d = process.cpuUsage(c);
      if (res.statusCode !== 200) throw new Error(res.body.slice(0, 500));
      if (i > 0) {
        ms.push(performance.now() - t);
        cpu.push((d.user + d.system) / 1000);
      }
      bytes = res.body.length;
    }
    const s = summary(ms);
    const c = summary(cpu);
    log(
      `${label.padEnd(58)} wall p50 ${fmt(s.p50, 1)} ms  p95 ${fmt(s.p95, 1)} ms | cpu p50 ${fmt(c.p50, 1)} ms  (${s.n} runs, answer ${fmt(bytes / 1024)} KiB)`,
    );
  };
  await httpTime('POST /price, a year, every half hour broken down', '/api/trading/cost/price', { mpan_core: MPAN.mpan_core, half_hours: halfHours });
  await httpTime('POST /price, a year, totals only', '/api/trading/cost/price', { mpan_core: MPAN.mpan_core, half_hours: halfHours, detail: 'totals' });
  await httpTime('POST /retail-tariffs/bill, a year, dynamic', '/api/trading/retail-tariffs/bill', {
    tariff_id: tariffId,
    from: FROM,
    to: TO,
    consumption: halfHours,
    prices: priceList,
  });
  log(`machine after: ${await machine()}`);
  await svc.stop();
}

await main();
