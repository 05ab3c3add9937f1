// The study models: plain arithmetic on the study's inputs, every assumption stated (docs/studies.md
// works the samples through by hand). Every figure is exact decimal arithmetic on the inputs (which
// carry at most 4 decimals): quantities are integers of 10^-scale units, products and sums exact,
// quotients rounded half away from zero at 12 decimals, and each figure rounded once, at the end
// (money to the penny, half away from zero). No binary floating point touches a figure.
import { formatScaled, parseScaled, pow10, rescale, roundDiv } from '../../kit/decimal.ts';
import { STUDY_TYPES, type Kind, type StudyType } from './catalogue.ts';

export interface Figure {
  key: string;
  label: string;
  value: string;
  unit: string;
}
export interface StudyResults {
  label: 'MODELLED';
  display_label: string;
  study_type: StudyType;
  figures: Figure[];
  chart: { title: string; unit: string; bars: { label: string; value: number }[] };
  assumptions: string[];
}

type Rows = Record<string, string>[];

/** An exact decimal: `v` × 10^-`s`. */
interface Dec {
  v: bigint;
  s: number;
}
const IN_SCALE = 4;
const DIV_SCALE = 12;
const ZERO: Dec = { v: 0n, s: IN_SCALE };
const dec = (text: string | undefined): Dec => {
  const v = parseScaled(String(text ?? '0').trim(), IN_SCALE);
  if (v === null) throw new ModelError(`${text} is not a decimal with at most ${IN_SCALE} places`);
  return { v, s: IN_SCALE };
};
const int = (n: number): Dec => ({ v: BigInt(n), s: 0 });
const at = (a: Dec, s: number): bigint => rescale(a.v, a.s, s);
const add = (a: Dec, b: Dec): Dec => {
  const s = Math.max(a.s, b.s);
  return { v: at(a, s) + at(b, s), s };
};
const sub = (a: Dec, b: Dec): Dec => add(a, { v: -b.v, s: b.s });
const mul = (...xs: Dec[]): Dec => xs.reduce((a, b) => ({ v: a.v * b.v, s: a.s + b.s }), int(1));
/** a / b rounded half away from zero at DIV_SCALE decimals (0 when b is 0). */
const div = (a: Dec, b: Dec): Dec => {
  if (b.v === 0n) return { v: 0n, s: DIV_SCALE };
  const e = DIV_SCALE + b.s - a.s; // (a.v / b.v) × 10^(b.s − a.s), wanted at DIV_SCALE decimals
  return { v: e >= 0 ? roundDiv(a.v * pow10(e), b.v) : roundDiv(a.v, b.v * pow10(-e)), s: DIV_SCALE };
};
const cmp = (a: Dec, b: Dec): number => {
  const s = Math.max(a.s, b.s);
  const d = at(a, s) - at(b, s);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};
const min = (a: Dec, b: Dec): Dec => (cmp(a, b) <= 0 ? a : b);
/** Pence as pounds to the penny. */
const gbp = (pence: Dec) => formatScaled(pence.v, pence.s + 2, 2);
const num = (v: Dec, dp = 2) => formatScaled(v.v, v.s, dp);
const asNumber = (v: Dec, dp = 2) => Number(formatScaled(v.v, v.s, dp));

function rates(tariff: Rows): Dec[] {
  const r = new Array<Dec>(49).fill(ZERO);
  for (const row of tariff) for (let p = Number(row.from_period); p <= Number(row.to_period); p++) r[p] = dec(row.p_per_kwh);
  return r;
}
const rateAt = (r: Dec[], period: number) => r[Math.min(period, 48)]!;

function constraints(rows: Rows | undefined): Record<string, Dec> {
  const c: Record<string, Dec> = {};
  for (const row of rows ?? []) c[row.name!] = dec(row.value);
  return c;
}

export class ModelError extends Error {}

function need(c: Record<string, Dec>, key: string): Dec {
  const v = c[key];
  if (v === undefined) throw new ModelError(`site_constraints has no ${key}`);
  return v;
}

function loadCost(load: Rows, r: Dec[]) {
  let energy = ZERO,
    pence: Dec = { v: 0n, s: 2 * IN_SCALE };
  const byPeriod = new Array<Dec>(51).fill(ZERO);
  const days = new Set<string>();
  for (const row of load) {
    const kwh = dec(row.kwh),
      p = Number(row.period);
    energy = add(energy, kwh);
    pence = add(pence, mul(kwh, rateAt(r, p)));
    byPeriod[p] = add(byPeriod[p]!, kwh);
    days.add(row.date!);
  }
  return { energy, pence, byPeriod, days: days.size };
}

const hm = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));

export function runModel(type: StudyType, inputs: Partial<Record<Kind, Rows>>): StudyResults {
  const def = STUDY_TYPES[type];
  const r = inputs.tariff ? rates(inputs.tariff) : [];
  const c = constraints(inputs.site_constraints);
  const base = { label: 'MODELLED' as const, display_label: def.display_label, study_type: type };
  const band = r.slice(1, 49);
  const cheapest = band.length ? band.reduce(min) : ZERO;
  const dearest = band.length ? band.reduce((a, b) => (cmp(a, b) >= 0 ? a : b)) : ZERO;
  switch (type) {
    case 'depot_savings_audit': {
      const l = loadCost(inputs.half_hourly_load!, r);
      return {
        ...base,
        figures: [
          { key: 'energy_kwh', label: 'Energy charged', value: num(l.energy), unit: 'kWh' },
          { key: 'actual_cost_gbp', label: 'Cost at the tariff', value: gbp(l.pence), unit: 'GBP' },
          { key: 'cheapest_rate_p_per_kwh', label: 'Cheapest unit rate', value: num(cheapest), unit: 'p/kWh' },
          { key: 'cost_all_cheapest_gbp', label: 'Cost had all of it been in the cheapest band', value: gbp(mul(l.energy, cheapest)), unit: 'GBP' },
          {
            key: 'savings_gbp',
            label: 'Saving available by moving charging to the cheapest band',
            value: gbp(sub(l.pence, mul(l.energy, cheapest))),
            unit: 'GBP',
          },
        ],
        chart: {
          title: 'Energy charged by half-hour period',
          unit: 'kWh',
          bars: l.byPeriod
            .slice(1)
            .map((v, i) => ({ label: String(i + 1), value: asNumber(v, IN_SCALE) }))
            .filter((b, i) => i < 48 || b.value > 0),
        },
        assumptions: [
          "Each half hour is priced at the unit rate of its period; periods 49 and 50 (clock-change days) at period 48's rate.",
          'Standing charges and VAT are not included.',
        ],
      };
    }
    case 'depot_electrification': {
      const vehicles = inputs.vehicles_shifts!;
      const chargerKw = need(c, 'charger_kw'),
        chargers = need(c, 'charger_count'),
        connection = need(c, 'connection_kw');
      const daily = vehicles.reduce((s, v) => add(s, dec(v.kwh_per_shift)), ZERO);
      const cheapPeriods = band.filter((x) => cmp(x, cheapest) === 0).length;
      const peakKw = mul(min(int(vehicles.length), chargers), chargerKw);
      // Energy in the cheapest band: the lesser of all chargers and the connection, for cheapPeriods half hours.
      const deliverable = div(mul(min(mul(chargers, chargerKw), connection), int(cheapPeriods)), int(2));
      const tooBig = vehicles.filter((v) => cmp(dec(v.kwh_per_shift), dec(v.battery_kwh)) > 0).map((v) => v.vehicle_id);
      const shortDwell = vehicles
        .filter((v) => {
          const dwell = (hm(v.depart!) - hm(v.return!) + 1440) % 1440;
          // minutes to recharge on one charger (kWh ÷ kW × 60) against the dwell in minutes
          const need = dec(v.kwh_per_shift);
          if (chargerKw.v === 0n) return need.v > 0n;
          return cmp(div(mul(need, int(60)), chargerKw), int(dwell)) > 0;
        })
        .map((v) => v.vehicle_id);
      return {
        ...base,
        figures: [
          { key: 'vehicles', label: 'Vehicles', value: String(vehicles.length), unit: 'count' },
          { key: 'daily_energy_kwh', label: 'Energy per day', value: num(daily), unit: 'kWh' },
          { key: 'daily_cost_gbp', label: 'Charging cost per day in the cheapest band', value: gbp(mul(daily, cheapest)), unit: 'GBP' },
          { key: 'annual_cost_gbp', label: 'Charging cost per year (365 shifts)', value: gbp(mul(daily, cheapest, int(365))), unit: 'GBP' },
          { key: 'peak_demand_kw', label: 'Peak charging demand', value: num(peakKw), unit: 'kW' },
          { key: 'connection_headroom_kw', label: 'Connection headroom at peak', value: num(sub(connection, peakKw)), unit: 'kW' },
          { key: 'cheapest_window_capacity_kwh', label: 'Energy the depot can deliver in the cheapest band', value: num(deliverable), unit: 'kWh' },
          { key: 'fits_cheapest_window', label: 'Daily energy fits in the cheapest band', value: cmp(daily, deliverable) <= 0 ? 'yes' : 'no', unit: 'yes/no' },
          { key: 'vehicles_over_battery', label: 'Vehicles whose shift uses more than the battery', value: tooBig.join(' ') || 'none', unit: 'list' },
          {
            key: 'vehicles_short_dwell',
            label: 'Vehicles that cannot recharge between shifts on one charger',
            value: shortDwell.join(' ') || 'none',
            unit: 'list',
          },
        ],
        chart: {
          title: 'Energy per shift by vehicle',
          unit: 'kWh',
          bars: vehicles.map((v) => ({ label: v.vehicle_id!, value: asNumber(dec(v.kwh_per_shift), IN_SCALE) })),
        },
        assumptions: [
          'One shift per vehicle per day, 365 days a year.',
          'All charging in the cheapest tariff band; chargers at full power; standing charges and VAT not included.',
        ],
      };
    }
    case 'solar_battery': {
      const l = loadCost(inputs.half_hourly_load!, r);
      const annualLoad = div(mul(l.energy, int(365)), int(Math.max(l.days, 1)));
      const avg = div(l.pence, l.energy); // p/kWh, load weighted (0 with no load)
      const solar = mul(c.solar_kwp ?? ZERO, c.solar_kwh_per_kwp ?? int(950));
      const selfUsed = min(solar, annualLoad);
      const battery = c.battery_kwh ?? ZERO;
      const solarP = mul(selfUsed, avg),
        batteryP = mul(battery, { v: 9n, s: 1 }, sub(dearest, cheapest), int(365));
      return {
        ...base,
        figures: [
          { key: 'annual_load_kwh', label: 'Annual site load', value: num(annualLoad), unit: 'kWh' },
          { key: 'average_rate_p_per_kwh', label: 'Load-weighted unit rate', value: num(avg, 4), unit: 'p/kWh' },
          { key: 'solar_generation_kwh', label: 'Annual solar generation', value: num(solar), unit: 'kWh' },
          { key: 'solar_self_consumed_kwh', label: 'Solar used on site', value: num(selfUsed), unit: 'kWh' },
          { key: 'solar_saving_gbp', label: 'Annual solar saving', value: gbp(solarP), unit: 'GBP' },
          { key: 'battery_saving_gbp', label: 'Annual battery saving', value: gbp(batteryP), unit: 'GBP' },
          { key: 'total_saving_gbp', label: 'Annual saving', value: gbp(add(solarP, batteryP)), unit: 'GBP' },
        ],
        chart: {
          title: 'Annual saving by measure',
          unit: 'GBP',
          bars: [
            { label: 'Solar', value: Number(gbp(solarP)) },
            { label: 'Battery', value: Number(gbp(batteryP)) },
          ],
        },
        assumptions: [
          'The load sample is repeated for 365 days.',
          'Solar is used on site up to the annual load and valued at the load-weighted unit rate; no export income.',
          'The battery cycles once a day, 90% round trip, from the cheapest to the dearest band.',
        ],
      };
    }
    case 'heat_pump_retrofit': {
      const l = loadCost(inputs.half_hourly_load!, r);
      const avg = div(l.pence, l.energy); // p/kWh, load weighted (0 with no load)
      const heat = need(c, 'heat_demand_kwh_per_year'),
        gas = need(c, 'gas_p_per_kwh'),
        eff = need(c, 'boiler_efficiency'),
        scop = need(c, 'heat_pump_scop');
      if (eff.v <= 0n || scop.v <= 0n) throw new ModelError('boiler_efficiency and heat_pump_scop must be above 0');
      const gasP = mul(div(heat, eff), gas),
        hpKwh = div(heat, scop),
        hpP = mul(hpKwh, avg);
      return {
        ...base,
        figures: [
          { key: 'gas_cost_gbp', label: 'Annual heating cost with the boiler', value: gbp(gasP), unit: 'GBP' },
          { key: 'heat_pump_kwh', label: 'Heat pump electricity per year', value: num(hpKwh), unit: 'kWh' },
          { key: 'average_rate_p_per_kwh', label: 'Load-weighted unit rate', value: num(avg, 4), unit: 'p/kWh' },
          { key: 'heat_pump_cost_gbp', label: 'Annual heating cost with the heat pump', value: gbp(hpP), unit: 'GBP' },
          { key: 'annual_saving_gbp', label: 'Annual saving (negative: the heat pump costs more)', value: gbp(sub(gasP, hpP)), unit: 'GBP' },
        ],
        chart: {
          title: 'Annual heating cost',
          unit: 'GBP',
          bars: [
            { label: 'Gas boiler', value: Number(gbp(gasP)) },
            { label: 'Heat pump', value: Number(gbp(hpP)) },
          ],
        },
        assumptions: [
          "Heat pump electricity is priced at the site's load-weighted unit rate.",
          'Standing charges, VAT and installation costs are not included.',
        ],
      };
    }
  }
}
