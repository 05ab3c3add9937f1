// EMS site settings: agreed capacity, PV, operating hours, tariff, battery and PPA contracts, as set
// (configured), validated beyond the schema (contract ids unique, end not before start).
import { Type, type Static } from 'typebox';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import { energyErrors } from './errors.ts';
import type { EnergyModel } from './model.ts';
import { PpaContract, Nullable } from './schemas.ts';

const Decimal4 = (description: string) => Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,4})?$', description });
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export const SettingsBody = Type.Object(
  {
    agreed_capacity_kw: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'Agreed import capacity, kW' })),
    pv_kwp: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'PV array peak power, kWp' })),
    pv_orientation: Nullable(
      Type.Object(
        { azimuth_deg: Type.Number({ minimum: 0, maximum: 360 }), tilt_deg: Type.Number({ minimum: 0, maximum: 90 }) },
        { additionalProperties: false },
      ),
    ),
    expected_yield_kwh_per_kwp: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 3000, description: 'Expected annual PV yield, kWh per kWp' })),
    operating_hours: Type.Array(
      Type.Object(
        {
          days: Type.Array(Type.Union(DAYS.map((d) => Type.Literal(d))), { minItems: 1, maxItems: 7 }),
          start: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'UK local time HH:MM' }),
          end: Type.String({ pattern: '^([01][0-9]|2[0-4]):[0-5][0-9]$', description: 'UK local time HH:MM (24:00 = midnight)' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 28, description: 'When the site is occupied (UK local time); consumption outside is out of hours' },
    ),
    tariff: Nullable(
      Type.Object(
        { import_p_per_kwh: Decimal4('Import unit rate, pence per kWh'), export_p_per_kwh: Nullable(Decimal4('Export rate, pence per kWh')) },
        { additionalProperties: false },
      ),
    ),
    battery_capacity_kwh: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'Usable battery capacity, kWh' })),
    ppa_contracts: Type.Array(PpaContract, { maxItems: 50 }),
  },
  { additionalProperties: false },
);
export type Settings = Static<typeof SettingsBody>;

export const EMPTY_SETTINGS: Settings = {
  agreed_capacity_kw: null,
  pv_kwp: null,
  pv_orientation: null,
  expected_yield_kwh_per_kwp: null,
  operating_hours: [],
  tariff: null,
  battery_capacity_kwh: null,
  ppa_contracts: [],
};

export function createSettings(deps: { db: Db; clock: Clock; model: EnergyModel; audit: AuditLog }) {
  const store = deps.model.store;

  async function read(orgId: string, siteId: string) {
    const s = await store.settings(deps.db, orgId, siteId);
    return {
      settings: { ...EMPTY_SETTINGS, ...(s?.settings as Partial<Settings> | undefined) },
      updated_at: s ? isoTime(s.updated_at) : null,
      configured: !!s,
    };
  }

  return {
    read,
    async get(ctx: RequestContext, siteId: string) {
      const site = await deps.model.siteContext(deps.db, ctx.orgId, siteId);
      if (!site.assets.length) throw energyErrors.siteNotFound();
      return { site_id: siteId, ...(await read(ctx.orgId, siteId)) };
    },
    async put(ctx: RequestContext, siteId: string, body: Settings) {
      const site = await deps.model.siteContext(deps.db, ctx.orgId, siteId);
      if (!site.assets.length) throw energyErrors.siteNotFound();
      const seen = new Set<string>();
      body.ppa_contracts.forEach((c, i) => {
        if (seen.has(c.contract_id)) throw energyErrors.field(['ppa_contracts', i, 'contract_id'], 'contract_id must be unique', c.contract_id);
        seen.add(c.contract_id);
        if (c.end_date && c.end_date < c.start_date)
          throw energyErrors.field(['ppa_contracts', i, 'end_date'], 'end_date must not be before start_date', c.end_date);
      });
      body.operating_hours.forEach((h, i) => {
        if (h.end <= h.start) throw energyErrors.field(['operating_hours', i, 'end'], 'end must be after start', h.end);
      });
      const now = deps.clock.now();
      await deps.db.tx(async (q) => {
        await store.putSettings(q, ctx.orgId, siteId, body, ctx.actor.kind === 'user' ? ctx.actor.userId : null, now);
        await deps.audit.record(q, ctx, { action: 'ems.site_settings.update', details: { site_id: siteId } });
      });
      return { site_id: siteId, ...(await read(ctx.orgId, siteId)) };
    },
  };
}

export type SiteSettings = ReturnType<typeof createSettings>;
