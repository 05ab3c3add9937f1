// The study models: plain arithmetic on the study's inputs, every assumption stated (docs/studies.md
// works the samples through by hand). Money is rounded once, at the end, to pence.
import { STUDY_TYPES, type Kind, type StudyType } from './catalogue.ts';

export interface Figure { key: string; label: string; value: string; unit: string }
export interface StudyResults {
  label: 'MODELLED';
  display_label: string;
  study_type: StudyType;
  figures: Figure[];
  chart: { title: string; unit: string; bars: { label: string; value: number }[] };
  assumptions: string[];
}

type Rows = Record<string, string>[];
const gbp = (pence: number) => (Math.round(pence) / 100).toFixed(2);
const num = (v: number, dp = 2) => (Math.round(v * 10 ** dp) / 10 ** dp).toFixed(dp);

function rates(tariff: Rows): number[] {
  const r = new Array<number>(49).fill(0);
  for (const row of tariff) for (let p = Number(row.from_period); p <= Number(row.to_period); p++) r[p] = Number(row.p_per_kwh);
  return r;
}
const rateAt = (r: number[], period: number) => r[Math.min(period, 48)]!;

function constraints(rows: Rows | undefined): Record<string, number> {
  const c: Record<string, number> = {};
  for (const row of rows ?? []) c[row.name!] = Number(row.value);
  return c;
}

export class ModelError extends Error {}

function need(c: Record<string, number>, key: string): number {
  const v = c[key];
  if (v === undefined) throw new ModelError(`site_constraints has no ${key}`);
  return v;
}

function loadCost(load: Rows, r: number[]) {
  let energy = 0, pence = 0;
  const byPeriod = new Array<number>(51).fill(0);
  const days = new Set<string>();
  for (const row of load) {
    const kwh = Number(row.kwh), p = Number(row.period);
    energy += kwh;
    pence += kwh * rateAt(r, p);
    byPeriod[p]! += kwh;
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
  const cheapest = Math.min(...r.slice(1, 49));
  const dearest = Math.max(...r.slice(1, 49));
  switch (type) {
    case 'depot_savings_audit': {
      const l = loadCost(inputs.half_hourly_load!, r);
      return {
        ...base,
        figures: [
          { key: 'energy_kwh', label: 'Energy charged', value: num(l.energy), unit: 'kWh' },
          { key: 'actual_cost_gbp', label: 'Cost at the tariff', value: gbp(l.pence), unit: 'GBP' },
          { key: 'cheapest_rate_p_per_kwh', label: 'Cheapest unit rate', value: num(cheapest), unit: 'p/kWh' },
          { key: 'cost_all_cheapest_gbp', label: 'Cost had all of it been in the cheapest band', value: gbp(l.energy * cheapest), unit: 'GBP' },
          { key: 'savings_gbp', label: 'Saving available by moving charging to the cheapest band', value: gbp(l.pence - l.energy * cheapest), unit: 'GBP' },
        ],
        chart: { title: 'Energy charged by half-hour period', unit: 'kWh', bars: l.byPeriod.slice(1).map((v, i) => ({ label: String(i + 1), value: v })).filter((b, i) => i < 48 || b.value > 0) },
        assumptions: ['Each half hour is priced at the unit rate of its period; periods 49 and 50 (clock-change days) at period 48\'s rate.', 'Standing charges and VAT are not included.'],
      };
    }
    case 'depot_electrification': {
      const vehicles = inputs.vehicles_shifts!;
      const chargerKw = need(c, 'charger_kw'), chargers = need(c, 'charger_count'), connection = need(c, 'connection_kw');
      const daily = vehicles.reduce((s, v) => s + Number(v.kwh_per_shift), 0);
      const cheapPeriods = r.slice(1, 49).filter((x) => x === cheapest).length;
      const peakKw = Math.min(vehicles.length, chargers) * chargerKw;
      const deliverable = Math.min(chargers * chargerKw, connection) * (cheapPeriods / 2);
      const tooBig = vehicles.filter((v) => Number(v.kwh_per_shift) > Number(v.battery_kwh)).map((v) => v.vehicle_id);
      const shortDwell = vehicles.filter((v) => {
        const dwell = (hm(v.depart!) - hm(v.return!) + 1440) % 1440;
        return (Number(v.kwh_per_shift) / chargerKw) * 60 > dwell;
      }).map((v) => v.vehicle_id);
      return {
        ...base,
        figures: [
          { key: 'vehicles', label: 'Vehicles', value: String(vehicles.length), unit: 'count' },
          { key: 'daily_energy_kwh', label: 'Energy per day', value: num(daily), unit: 'kWh' },
          { key: 'daily_cost_gbp', label: 'Charging cost per day in the cheapest band', value: gbp(daily * cheapest), unit: 'GBP' },
          { key: 'annual_cost_gbp', label: 'Charging cost per year (365 shifts)', value: gbp(daily * cheapest * 365), unit: 'GBP' },
          { key: 'peak_demand_kw', label: 'Peak charging demand', value: num(peakKw), unit: 'kW' },
          { key: 'connection_headroom_kw', label: 'Connection headroom at peak', value: num(connection - peakKw), unit: 'kW' },
          { key: 'cheapest_window_capacity_kwh', label: 'Energy the depot can deliver in the cheapest band', value: num(deliverable), unit: 'kWh' },
          { key: 'fits_cheapest_window', label: 'Daily energy fits in the cheapest band', value: daily <= deliverable ? 'yes' : 'no', unit: 'yes/no' },
          { key: 'vehicles_over_battery', label: 'Vehicles whose shift uses more than the battery', value: tooBig.join(' ') || 'none', unit: 'list' },
          { key: 'vehicles_short_dwell', label: 'Vehicles that cannot recharge between shifts on one charger', value: shortDwell.join(' ') || 'none', unit: 'list' },
        ],
        chart: { title: 'Energy per shift by vehicle', unit: 'kWh', bars: vehicles.map((v) => ({ label: v.vehicle_id!, value: Number(v.kwh_per_shift) })) },
        assumptions: ['One shift per vehicle per day, 365 days a year.', 'All charging in the cheapest tariff band; chargers at full power; standing charges and VAT not included.'],
      };
    }
    case 'solar_battery': {
      const l = loadCost(inputs.half_hourly_load!, r);
      const annualLoad = (l.energy / Math.max(l.days, 1)) * 365;
      const avg = l.energy > 0 ? l.pence / l.energy : 0;
      const solar = (c.solar_kwp ?? 0) * (c.solar_kwh_per_kwp ?? 950);
      const selfUsed = Math.min(solar, annualLoad);
      const battery = c.battery_kwh ?? 0;
      const solarP = selfUsed * avg, batteryP = battery * 0.9 * (dearest - cheapest) * 365;
      return {
        ...base,
        figures: [
          { key: 'annual_load_kwh', label: 'Annual site load', value: num(annualLoad), unit: 'kWh' },
          { key: 'average_rate_p_per_kwh', label: 'Load-weighted unit rate', value: num(avg, 4), unit: 'p/kWh' },
          { key: 'solar_generation_kwh', label: 'Annual solar generation', value: num(solar), unit: 'kWh' },
          { key: 'solar_self_consumed_kwh', label: 'Solar used on site', value: num(selfUsed), unit: 'kWh' },
          { key: 'solar_saving_gbp', label: 'Annual solar saving', value: gbp(solarP), unit: 'GBP' },
          { key: 'battery_saving_gbp', label: 'Annual battery saving', value: gbp(batteryP), unit: 'GBP' },
          { key: 'total_saving_gbp', label: 'Annual saving', value: gbp(solarP + batteryP), unit: 'GBP' },
        ],
        chart: { title: 'Annual saving by measure', unit: 'GBP', bars: [{ label: 'Solar', value: Math.round(solarP) / 100 }, { label: 'Battery', value: Math.round(batteryP) / 100 }] },
        assumptions: ['The load sample is repeated for 365 days.', 'Solar is used on site up to the annual load and valued at the load-weighted unit rate; no export income.', 'The battery cycles once a day, 90% round trip, from the cheapest to the dearest band.'],
      };
    }
    case 'heat_pump_retrofit': {
      const l = loadCost(inputs.half_hourly_load!, r);
      const avg = l.energy > 0 ? l.pence / l.energy : 0;
      const heat = need(c, 'heat_demand_kwh_per_year'), gas = need(c, 'gas_p_per_kwh'), eff = need(c, 'boiler_efficiency'), scop = need(c, 'heat_pump_scop');
      if (eff <= 0 || scop <= 0) throw new ModelError('boiler_efficiency and heat_pump_scop must be above 0');
      const gasP = (heat / eff) * gas, hpKwh = heat / scop, hpP = hpKwh * avg;
      return {
        ...base,
        figures: [
          { key: 'gas_cost_gbp', label: 'Annual heating cost with the boiler', value: gbp(gasP), unit: 'GBP' },
          { key: 'heat_pump_kwh', label: 'Heat pump electricity per year', value: num(hpKwh), unit: 'kWh' },
          { key: 'average_rate_p_per_kwh', label: 'Load-weighted unit rate', value: num(avg, 4), unit: 'p/kWh' },
          { key: 'heat_pump_cost_gbp', label: 'Annual heating cost with the heat pump', value: gbp(hpP), unit: 'GBP' },
          { key: 'annual_saving_gbp', label: 'Annual saving (negative: the heat pump costs more)', value: gbp(gasP - hpP), unit: 'GBP' },
        ],
        chart: { title: 'Annual heating cost', unit: 'GBP', bars: [{ label: 'Gas boiler', value: Math.round(gasP) / 100 }, { label: 'Heat pump', value: Math.round(hpP) / 100 }] },
        assumptions: ['Heat pump electricity is priced at the site\'s load-weighted unit rate.', 'Standing charges, VAT and installation costs are not included.'],
      };
    }
  }
}
