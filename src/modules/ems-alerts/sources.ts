// The five EMS alert sources, as pure functions of the organisation's assets, their half hours and
// the policy (docs/alerts.md). Energies (generation, discharge, import) are the energy ledger's
// (the energy module owns them: counters measured, power integrated; read through ENERGY_FIGURES,
// decision 0320); readings (state of charge, power against an export limit in kW) are telemetry's
// half-hourly means. Impacts are whole pence from exact decimal arithmetic (src/kit/decimal.ts).
import { freshnessOf, type Freshness } from '../registry/index.ts';
import { decimal, fromNumber, pow10, roundDiv, toNumber } from '../../kit/decimal.ts';
import { ukClock } from '../../kit/uk-time.ts';
import { sitePrices, type AlertPolicy } from './policy.ts';

export const SOURCES = ['asset_silence', 'pv_underperformance', 'battery_not_cycling', 'peak_import_with_charge', 'export_over_limit'] as const;
export type Source = (typeof SOURCES)[number];

/** How each source's impact (£/day) is worked out, in one sentence. */
export const IMPACT_METHODS: Record<Source, string> = {
  asset_silence:
    "Energy the asset generated or discharged in the 24 hours of half hours up to its last record (the energy ledger's generation or discharge, summed) × the site's import rate: the energy now bought instead, per day (0.00 for assets that neither generate nor store).",
  pv_underperformance:
    "(Expected yield − measured generation) over the evaluation window, scaled to 24 hours, × the site's import rate; expected yield is capacity_kwp × the policy's kWh per kWp per day (or the asset's own expected_kwh_per_day), measured generation the energy ledger's generation of the inverter, summed over the window's half hours.",
  battery_not_cycling:
    "One full cycle of the battery's capacity_kwh per day × (the site's peak import rate − its import rate): the peak-time purchases a daily cycle would displace (0.00 when the capacity is not recorded).",
  peak_import_with_charge:
    "Energy imported at the site meter in peak-band half hours while the battery's state of charge stayed at or above the policy's level (the energy ledger's import of the meter, summed), scaled to 24 hours, × the site's peak import rate.",
  export_over_limit:
    "Energy exported above the site's export limit (half-hourly mean export power minus the limit, × 0.5 h, summed over the half hours above it), scaled to 24 hours, × the site's export rate.",
};

export const SOURCE_DESCRIPTIONS: Record<Source, string> = {
  asset_silence: 'A device whose newest record is older than the policy allows (past its freshness band).',
  pv_underperformance: 'An inverter generating less than its expected yield by more than the policy allows.',
  battery_not_cycling: 'A battery whose state of charge barely moved over the window.',
  peak_import_with_charge: 'A site importing in the peak band while its battery holds charge.',
  export_over_limit: 'A site exporting above its export limit.',
};

export interface EvalAsset {
  asset_id: string;
  site_id: string;
  cls: string | null;
  details: Record<string, unknown>;
  last_ts: Date | null;
}

export interface Slot {
  slot: string;
  samples: number;
  mean_power_kw: number | null;
  min_soc_pct: number | null;
  max_soc_pct: number | null;
}

/** One half hour of an asset's flow as the energy ledger holds it (kWh to the watt-hour, as text). */
export interface FlowSlot {
  slot: string;
  flow: string;
  kwh: string;
  coverage: number;
}

export interface Finding {
  source: Source;
  dedupe_key: string;
  site_id: string;
  asset_id: string | null;
  subject: { type: 'asset' | 'site'; id: string };
  since: Date;
  title: string;
  evidence: Record<string, unknown>;
  impact_pence: bigint;
}

/** Who a finding about one asset is: its source, dedupe key (one open alert per asset and source), site and subject. */
function assetFinding(source: Source, a: { site_id: string; asset_id: string }): Pick<Finding, 'source' | 'dedupe_key' | 'site_id' | 'asset_id' | 'subject'> {
  return { source, dedupe_key: `ems:${source}:${a.asset_id}`, site_id: a.site_id, asset_id: a.asset_id, subject: { type: 'asset', id: a.asset_id } };
}

export interface EvalInput {
  now: Date;
  policy: AlertPolicy;
  assets: EvalAsset[];
  /**
   * The evaluation window [from, to): telemetry's half hours of each asset (readings) and the
   * energy ledger's half hours of each asset's flows (generation, import).
   */
  window: { from: Date; to: Date; slots: Map<string, Slot[]>; energy: Map<string, FlowSlot[]> };
  /** The ledger's generation or discharge half hours of each silent asset in the 24 hours before its last record. */
  beforeSilence: Map<string, { from: Date; to: Date; energy: FlowSlot[] }>;
  /** Assets whose readings the ledger had not yet folded in when it was read (their energies may be behind). */
  pending: Set<string>;
}

const HALF_HOUR_H = 0.5;
/**
 * Pence per day: energy (millionths of a kWh) over a window of `windowHours`, scaled to 24 hours,
 * × a price in pence per kWh (decimal text); rounded once, to the penny.
 */
export const pencePerDay = (energyMicroKwh: bigint, windowHours: number, priceP: string): bigint =>
  roundDiv(energyMicroKwh * decimal(priceP, 6) * 24n, pow10(12) * BigInt(windowHours));

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
const windowOf = (w: { from: Date; to: Date }) => ({ from: w.from.toISOString(), to: w.to.toISOString() });

/** A ledger half hour's energy in millionths of a kWh. */
const flowMicros = (s: FlowSlot) => decimal(s.kwh, 6);
const ofFlow = (slots: FlowSlot[] | undefined, flow: string) => (slots ?? []).filter((s) => s.flow === flow);
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
const METERS = ['site_meter', 'smart_meter'];

/** Minutes after UK local midnight at the start of a half hour (the wall clock). */
export const ukMinutes = (at: Date): number => ukClock(at.getTime()).minute;

export function inBand(at: Date, band: { start: string; end: string }): boolean {
  const m = ukMinutes(at);
  const s = Number(band.start.slice(0, 2)) * 60 + Number(band.start.slice(3));
  const e = Number(band.end.slice(0, 2)) * 60 + Number(band.end.slice(3));
  return s <= e ? m >= s && m < e : m >= s || m < e;
}

export function evaluateSources(input: EvalInput): Finding[] {
  const { now, policy: p, assets, window } = input;
  const out: Finding[] = [];
  const slotsIn = window.slots;
  const halfHoursInWindow = p.window_hours * 2;

  for (const a of assets) {
    const prices = sitePrices(p, a.site_id);
    // asset_silence: the newest record is older than the policy allows.
    if (a.last_ts && now.getTime() - a.last_ts.getTime() >= p.silence_after_minutes * 60_000) {
      const before = input.beforeSilence.get(a.asset_id);
      const values = a.cls === 'inverter' || a.cls === 'battery';
      const energy = values && before ? sum(before.energy.map(flowMicros)) : 0n;
      const band: Freshness = freshnessOf(a.last_ts, now);
      out.push({
        ...assetFinding('asset_silence', a),
        since: a.last_ts,
        title: `${a.asset_id} at ${a.site_id} has sent nothing since ${a.last_ts.toISOString()}`,
        evidence: {
          last_record_at: a.last_ts.toISOString(),
          silent_for_minutes: Math.floor((now.getTime() - a.last_ts.getTime()) / 60_000),
          freshness: band,
          threshold_minutes: p.silence_after_minutes,
          asset_class: a.cls,
          energy_before_silence_kwh: toNumber(energy, 6, 3),
          ledger_pending: values ? input.pending.has(a.asset_id) : false,
          import_p_per_kwh: prices.import_p_per_kwh,
          window: before ? windowOf(before) : null,
        },
        impact_pence: pencePerDay(energy, 24, prices.import_p_per_kwh),
      });
      continue; // a silent asset's other figures would be judged on missing data
    }
    const slots = slotsIn.get(a.asset_id) ?? [];
    if (a.cls === 'inverter') {
      const kwp = num(a.details.capacity_kwp) ?? num(a.details.kwp);
      const ownDaily = num(a.details.expected_kwh_per_day);
      // The ledger's half hours of the inverter's generation that hold energy measured or integrated.
      const generation = ofFlow(window.energy.get(a.asset_id), 'generation').filter((s) => s.coverage > 0);
      if ((kwp || ownDaily) && generation.length * 2 >= halfHoursInWindow) {
        const dailyMicros = ownDaily ? fromNumber(ownDaily, 6) : roundDiv(fromNumber(kwp!, 6) * decimal(p.pv.expected_kwh_per_kwp_day, 6), 1_000_000n);
        const expected = roundDiv(dailyMicros * BigInt(p.window_hours), 24n);
        const measured = sum(generation.map(flowMicros));
        // measured < expected × (1 − pct/100), in integers
        if (measured * 100n < expected * BigInt(100 - p.pv.underperformance_pct)) {
          const shortfall = expected - measured;
          const first = generation[0]!;
          out.push({
            ...assetFinding('pv_underperformance', a),
            since: new Date(first.slot),
            title: `${a.asset_id} at ${a.site_id} generated ${toNumber(measured, 6, 3)} kWh against ${toNumber(expected, 6, 3)} kWh expected`,
            evidence: {
              capacity_kwp: kwp,
              expected_kwh_per_kwp_day: ownDaily ? null : p.pv.expected_kwh_per_kwp_day,
              expected_kwh_per_day: ownDaily ?? null,
              expected_kwh: toNumber(expected, 6, 3),
              measured_kwh: toNumber(measured, 6, 3),
              shortfall_kwh: toNumber(shortfall, 6, 3),
              shortfall_pct: expected > 0n ? Number(roundDiv(shortfall * 1000n, expected)) / 10 : 0,
              threshold_pct: p.pv.underperformance_pct,
              half_hours_with_data: generation.length,
              ledger_pending: input.pending.has(a.asset_id),
              import_p_per_kwh: prices.import_p_per_kwh,
              window: windowOf(window),
            },
            impact_pence: pencePerDay(shortfall, p.window_hours, prices.import_p_per_kwh),
          });
        }
      }
    }
    if (a.cls === 'battery') {
      const soc = slots.filter((s) => s.min_soc_pct !== null && s.max_soc_pct !== null);
      if (soc.length * 2 >= halfHoursInWindow) {
        const lo = Math.min(...soc.map((s) => s.min_soc_pct!));
        const hi = Math.max(...soc.map((s) => s.max_soc_pct!));
        const swing = Math.round((hi - lo) * 1000) / 1000;
        if (swing < p.battery.min_soc_swing_pct) {
          const cap = num(a.details.capacity_kwh);
          const spread = decimal(prices.peak_import_p_per_kwh, 6) - decimal(prices.import_p_per_kwh, 6);
          const impact = cap && spread > 0n ? roundDiv(fromNumber(cap, 6) * spread, 1_000_000_000_000n) : 0n;
          out.push({
            ...assetFinding('battery_not_cycling', a),
            since: new Date(soc[0].slot),
            title: `${a.asset_id} at ${a.site_id} moved ${swing} points of charge in ${p.window_hours} h`,
            evidence: {
              min_soc_pct: lo,
              max_soc_pct: hi,
              swing_pct: swing,
              threshold_pct: p.battery.min_soc_swing_pct,
              capacity_kwh: cap,
              import_p_per_kwh: prices.import_p_per_kwh,
              peak_import_p_per_kwh: prices.peak_import_p_per_kwh,
              window: windowOf(window),
            },
            impact_pence: impact,
          });
        }
      }
    }
  }

  // Site-level sources: the site's meter (a site meter before a smart meter, then by id).
  const bySite = new Map<string, EvalAsset[]>();
  for (const a of assets) bySite.set(a.site_id, [...(bySite.get(a.site_id) ?? []), a]);
  const silent = new Set(out.filter((f) => f.source === 'asset_silence').map((f) => f.asset_id));
  for (const [siteId, list] of [...bySite.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const meter = list
      .filter((a) => a.cls && METERS.includes(a.cls) && !silent.has(a.asset_id))
      .sort((x, y) => METERS.indexOf(x.cls!) - METERS.indexOf(y.cls!) || (x.asset_id < y.asset_id ? -1 : 1))[0];
    if (!meter) continue;
    const prices = sitePrices(p, siteId);
    const meterSlots = (slotsIn.get(meter.asset_id) ?? []).filter((s) => s.mean_power_kw !== null);
    const meterImport = ofFlow(window.energy.get(meter.asset_id), 'import');

    // peak_import_with_charge: the ledger's import of the meter; the battery's state of charge (a reading).
    const batteries = list.filter((a) => a.cls === 'battery' && !silent.has(a.asset_id)).sort((x, y) => (x.asset_id < y.asset_id ? -1 : 1));
    for (const b of batteries) {
      const socBySlot = new Map((slotsIn.get(b.asset_id) ?? []).map((s) => [Date.parse(s.slot), s]));
      const hits = meterImport.filter((s) => {
        const bs = socBySlot.get(Date.parse(s.slot));
        return flowMicros(s) > 0n && inBand(new Date(s.slot), p.peak_band) && bs?.min_soc_pct != null && bs.min_soc_pct >= p.battery.charge_held_soc_pct;
      });
      if (hits.length === 0) continue;
      const kwh = sum(hits.map(flowMicros));
      out.push({
        source: 'peak_import_with_charge',
        dedupe_key: `ems:peak_import_with_charge:${siteId}:${b.asset_id}`,
        site_id: siteId,
        asset_id: b.asset_id,
        subject: { type: 'site', id: siteId },
        since: new Date(hits[0].slot),
        title: `${siteId} imported ${toNumber(kwh, 6, 3)} kWh at peak while ${b.asset_id} held charge`,
        evidence: {
          meter_asset_id: meter.asset_id,
          battery_asset_id: b.asset_id,
          half_hours: hits.map((s) => s.slot),
          imported_kwh: toNumber(kwh, 6, 3),
          ledger_pending: input.pending.has(meter.asset_id),
          peak_band: p.peak_band,
          charge_held_soc_pct: p.battery.charge_held_soc_pct,
          peak_import_p_per_kwh: prices.peak_import_p_per_kwh,
          window: windowOf(window),
        },
        impact_pence: pencePerDay(kwh, p.window_hours, prices.peak_import_p_per_kwh),
      });
      break; // one alert per site: the first battery (by id) that held charge
    }

    // export_over_limit: a power figure (the half hour's mean export power from the readings)
    // against a limit in kW, not site energy (decision 0320).
    const limit = p.sites[siteId]?.export_limit_kw ?? num(meter.details.export_limit_kw);
    if (limit != null) {
      const over = meterSlots.filter((s) => -(s.mean_power_kw as number) > limit);
      if (over.length > 0) {
        const excess = sum(over.map((s) => fromNumber((-(s.mean_power_kw as number) - limit) * HALF_HOUR_H, 6)));
        const peak = Math.max(...over.map((s) => -(s.mean_power_kw as number)));
        out.push({
          source: 'export_over_limit',
          dedupe_key: `ems:export_over_limit:${siteId}`,
          site_id: siteId,
          asset_id: meter.asset_id,
          subject: { type: 'site', id: siteId },
          since: new Date(over[0].slot),
          title: `${siteId} exported up to ${Math.round(peak * 1000) / 1000} kW against a ${limit} kW limit`,
          evidence: {
            meter_asset_id: meter.asset_id,
            export_limit_kw: limit,
            half_hours_over: over.length,
            max_export_kw: Math.round(peak * 1000) / 1000,
            excess_kwh: toNumber(excess, 6, 3),
            export_p_per_kwh: prices.export_p_per_kwh,
            window: windowOf(window),
          },
          impact_pence: pencePerDay(excess, p.window_hours, prices.export_p_per_kwh),
        });
      }
    }
  }
  return out;
}
