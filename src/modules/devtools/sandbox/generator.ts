// The sandbox organisation: generated on the fly, never stored. Two simulated sites, six assets
// with five-minute telemetry and two alerts, all derived from a seed (HMAC of the caller's
// organisation under the service secret) and the clock, so the same organisation at the same time
// always reads the same data.
import { createHmac } from 'node:crypto';
import type { Config } from '../../../core/config.ts';
import { sandboxOrgId, type EventType } from '../common.ts';
import type { AlertView } from '../../alerts/index.ts';
import type { ReadingValues } from '../../telemetry/index.ts';

export const SLOT_MS = 5 * 60_000;
const ASSETS_CREATED = '2026-01-01T00:00:00.000Z';

interface SimAsset {
  asset_id: string;
  site_id: string;
  type: string;
  name: string;
}

const SITES = [
  { site_id: 'sandbox-site-north', name: 'North depot (simulated)' },
  { site_id: 'sandbox-site-south', name: 'South office (simulated)' },
];

const ASSETS: SimAsset[] = [
  { asset_id: 'sbx-north-pv-1', site_id: SITES[0].site_id, type: 'solar', name: 'Rooftop PV inverter' },
  { asset_id: 'sbx-north-battery-1', site_id: SITES[0].site_id, type: 'battery', name: 'Depot battery' },
  { asset_id: 'sbx-north-meter-1', site_id: SITES[0].site_id, type: 'smart-meter', name: 'North boundary meter' },
  { asset_id: 'sbx-south-charger-1', site_id: SITES[1].site_id, type: 'charger', name: 'Fleet charger' },
  { asset_id: 'sbx-south-heatpump-1', site_id: SITES[1].site_id, type: 'heat-pump', name: 'Office heat pump' },
  { asset_id: 'sbx-south-meter-1', site_id: SITES[1].site_id, type: 'smart-meter', name: 'South boundary meter' },
];

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

export interface SimReading extends ReadingValues {
  id: string;
  asset_id: string;
  site_id: string;
  asset_type: string;
  ts: string;
  /** Position among the six assets (the tie-breaker within a slot). */
  index: number;
}

export function createSandboxData(config: Pick<Config, 'jwtSecret'>) {
  const seedOf = (orgId: string, ...parts: (string | number)[]) =>
    createHmac('sha256', config.jwtSecret)
      .update(['sandbox-seed', orgId, ...parts].join(':'))
      .digest()
      .readUInt32BE(0);

  function reading(orgId: string, index: number, slotMs: number): SimReading {
    const a = ASSETS[index];
    const rnd = prng(seedOf(orgId, index, slotMs));
    const hour = (slotMs % 86_400_000) / 3_600_000;
    const daylight = Math.max(0, Math.sin((Math.PI * (hour - 6)) / 12));
    const pv = daylight * 4.5 * (0.85 + 0.15 * rnd());
    const phase = seedOf(orgId, 'phase') % 24;
    const socWave = Math.sin((2 * Math.PI * (hour + phase)) / 24);
    const charging = Math.cos((2 * Math.PI * (hour + phase)) / 24) > 0;
    const battery = (charging ? 2.5 : -2.5) * (0.8 + 0.2 * rnd());
    const evOn = hour >= 18 && hour < 23;
    const hp = 1 + 2 * rnd();
    const base = {
      id: `sbx-${slotMs / 1000}-${index}`,
      asset_id: a.asset_id,
      site_id: a.site_id,
      asset_type: a.type,
      ts: new Date(slotMs).toISOString(),
      index,
    };
    const volts = round(228 + 6 * rnd(), 1);
    const common = { voltage: volts, temp_c: round(12 + 10 * daylight + 2 * rnd(), 1) };
    switch (a.type) {
      case 'solar':
        return { ...base, ...common, power_kw: round(-pv), soc_pct: null, current: round((pv * 1000) / volts, 2), status: pv > 0.05 ? 'Producing' : 'Standby' };
      case 'battery':
        return {
          ...base,
          ...common,
          power_kw: round(battery),
          soc_pct: round(50 + 40 * socWave, 1),
          current: round((Math.abs(battery) * 1000) / volts, 2),
          status: charging ? 'CHARGING' : 'DISCHARGING',
        };
      case 'charger':
        return {
          ...base,
          ...common,
          power_kw: evOn ? round(7 + 0.4 * rnd()) : 0,
          soc_pct: evOn ? round(20 + 60 * ((hour - 18) / 5), 1) : null,
          current: evOn ? 32 : 0,
          status: evOn ? 'Charging' : 'Available',
        };
      case 'heat-pump':
        return { ...base, ...common, power_kw: round(hp), soc_pct: null, current: round((hp * 1000) / volts, 2), status: 'Running' };
      default: {
        const load = index === 2 ? 1.5 + rnd() - pv + battery : 0.8 + rnd() + hp + (evOn ? 7.2 : 0);
        return { ...base, ...common, power_kw: round(load), soc_pct: null, current: round((Math.abs(load) * 1000) / volts, 2), status: 'unknown' };
      }
    }
  }

  const lastSlot = (now: Date) => Math.floor(now.getTime() / SLOT_MS) * SLOT_MS;

  function alerts(orgId: string, now: Date): (AlertView & { seq: number })[] {
    const hour = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
    const idOf = (n: number, t: number) => `sbx-alert-${createHmac('sha256', config.jwtSecret).update(`${orgId}:${n}:${t}`).digest('hex').slice(0, 16)}`;
    const lowSoc = hour - 2 * 3_600_000;
    const silence = hour - 26 * 3_600_000;
    return [
      {
        seq: 2,
        id: idOf(2, lowSoc),
        type: 'battery_low_soc',
        source: 'sandbox',
        severity: 'warning',
        status: 'open',
        subject: { type: 'asset', id: ASSETS[1].asset_id },
        title: 'Depot battery state of charge below 20% (simulated)',
        details: { asset_id: ASSETS[1].asset_id, site_id: ASSETS[1].site_id, threshold_pct: 20 },
        raised_at: new Date(lowSoc).toISOString(),
        resolved_at: null,
        resolution: null,
      },
      {
        seq: 1,
        id: idOf(1, silence),
        type: 'asset_silence',
        source: 'sandbox',
        severity: 'critical',
        status: 'resolved',
        subject: { type: 'asset', id: ASSETS[5].asset_id },
        title: 'South boundary meter stopped reporting (simulated)',
        details: { asset_id: ASSETS[5].asset_id, site_id: ASSETS[5].site_id, silent_minutes: 45 },
        raised_at: new Date(silence).toISOString(),
        resolved_at: new Date(silence + 3_600_000).toISOString(),
        resolution: 'recovered',
      },
    ];
  }

  return {
    orgOf: (orgId: string) => sandboxOrgId(config, orgId),
    sites: SITES,
    assets: ASSETS,
    reading,
    lastSlot,

    /** Readings in [windowStart, before) newest first (ties: higher asset index first). */
    readings(orgId: string, opts: { windowStartMs: number; now: Date; before?: { slotMs: number; index: number }; limit: number }): SimReading[] {
      const out: SimReading[] = [];
      let slot = opts.before ? opts.before.slotMs : lastSlot(opts.now);
      let index = opts.before ? opts.before.index - 1 : ASSETS.length - 1;
      while (out.length < opts.limit && slot >= opts.windowStartMs) {
        if (index < 0) {
          slot -= SLOT_MS;
          index = ASSETS.length - 1;
          continue;
        }
        out.push(reading(orgId, index, slot));
        index--;
      }
      return out;
    },

    devices(orgId: string, now: Date) {
      const slot = lastSlot(now);
      return ASSETS.map((a, i) => {
        const r = reading(orgId, i, slot);
        return { ...a, created_at: ASSETS_CREATED, last_reported_at: r.ts, last_reported_source: 'telemetry' as const, status: r.status, power_kw: r.power_kw };
      });
    },

    alerts,

    scenario(orgId: string, now: Date) {
      return {
        organisation_id: sandboxOrgId(config, orgId),
        environment: 'sandbox' as const,
        description:
          'A simulated organisation derived from yours: two sites, six assets reporting every five minutes and two alerts, ' +
          'generated from a seed and the clock (the same data for the same organisation and time). Nothing is stored; ' +
          'nothing acts on a real device.',
        generated_at: now.toISOString(),
        telemetry_interval_seconds: SLOT_MS / 1000,
        sites: SITES.map((s) => ({ ...s, asset_ids: ASSETS.filter((a) => a.site_id === s.site_id).map((a) => a.asset_id) })),
        assets: ASSETS.map((a) => ({ ...a })),
        alerts: alerts(orgId, now).map((a) => ({ id: a.id, type: a.type, status: a.status, raised_at: a.raised_at })),
        webhook_event_types: ['alert.raised', 'alert.resolved', 'device.offline', 'webhook.test'] as EventType[],
      };
    },

    /** `data` of a sample event (sandbox) or of webhook.test. */
    sampleEventData(orgId: string, type: EventType, now: Date, extra: { endpointId?: string } = {}): Record<string, unknown> {
      const [open, resolved] = alerts(orgId, now);
      const { seq: _a, ...openAlert } = open;
      const { seq: _b, ...resolvedAlert } = resolved;
      switch (type) {
        case 'alert.raised':
          return { alert: openAlert, sample: true };
        case 'alert.resolved':
          return { alert: resolvedAlert, sample: true };
        case 'device.offline': {
          const a = ASSETS[5];
          const last = new Date(lastSlot(now) - 45 * 60_000).toISOString();
          return { device: { ...a, last_reported_at: last, last_reported_source: 'telemetry' }, threshold_seconds: 1800, sample: true };
        }
        default:
          return { message: 'Test event from the developer platform', endpoint_id: extra.endpointId ?? null, requested_at: now.toISOString() };
      }
    },
  };
}

export type SandboxData = ReturnType<typeof createSandboxData>;
