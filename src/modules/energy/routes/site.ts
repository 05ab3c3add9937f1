// Site energy (endpoints.md 4.5) and the EMS sites and settings operations.
import { Type } from 'typebox';
import { LiteralUnion, ErrorResponse } from '../../../platform/schema-kit.ts';
import { BEARER, withDefaults, type Operation } from '../../../platform/operation.ts';
import { LEAGUE_MEASURES, type LeagueMeasure, type SiteEnergy } from '../site.ts';
import { SettingsBody, type SiteSettings } from '../settings.ts';
import type { EnergyModel } from '../model.ts';
import type { Db } from '../../../infra/db/index.ts';
import * as S from '../schemas.ts';

const tags = ['site-energy'];
const ems = ['ems-reporting'];
const SELF_METHOD =
  'From the half-hour ledger: self-consumed = max(generation - export, 0) each half hour, summed; self-consumption ratio = self-consumed / generation; self-sufficiency = max(consumption - import, 0) each half hour, summed, / the positive consumption of each half hour, summed (at most 1).';
const Figures = {
  generation_kwh: S.Kwh(),
  export_kwh: S.Kwh(),
  import_kwh: S.Kwh(),
  consumption_kwh: S.Kwh(),
  self_consumed_kwh: S.Kwh(),
  self_consumption_ratio: S.Ratio('self-consumed / generation'),
  self_sufficiency_ratio: S.Ratio('Σ max(consumption - import, 0) / Σ max(consumption, 0), each half hour'),
  charge_kwh: S.Kwh(),
  discharge_kwh: S.Kwh(),
  half_hours: Type.Integer(),
  half_hours_with_data: Type.Integer(),
  complete_half_hours: Type.Integer(),
  measured_half_hours: Type.Integer(),
  data_completeness: S.Ratio('complete half hours / half hours in the window'),
  max_import_kwh: S.Kwh(),
  window_days: Type.Integer(),
};
const Window = { from: S.Timestamp, to: S.Timestamp };
const SettingsAnswer = Type.Object({ site_id: Type.String(), settings: SettingsBody, updated_at: S.Nullable(S.Timestamp), configured: Type.Boolean() });

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function siteOperations(se: SiteEnergy, st: SiteSettings, model: EnergyModel, db: Db): Operation[] {
  return [
    op({
      operationId: 'listEnergySites',
      method: 'GET',
      path: '/api/telemetry/sites',
      summary: "The organisation's sites with their energy over a window",
      description:
        "Every site with a registered asset: how many assets feed each role (grid meter, PV, battery, load) and the window's totals (default the last 30 UK days, `days` 1 to 366). " +
        SELF_METHOD,
      dataBasis: { basis: 'calculated', method: SELF_METHOD },
      schema: {
        query: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })) }),
        response: {
          200: Type.Object({
            ...Window,
            sites: Type.Array(Type.Object({ site_id: Type.String(), assets: Type.Integer(), roles: Type.Record(Type.String(), Type.Integer()), ...Figures })),
          }),
        },
      },
      handler: ({ ctx, query }) => se.sites(ctx, query),
    }),
    op({
      operationId: 'getSelfConsumption',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/self-consumption',
      summary: 'Self-consumption and self-sufficiency of a site',
      description:
        'Generation used on site against generation exported, and the share of consumption met on site, over UK days (`date` or `from`..`to`; default the last 30), with each day. ' +
        SELF_METHOD,
      dataBasis: { basis: 'calculated', method: SELF_METHOD },
      schema: {
        ...S.SiteDays,
        response: {
          200: S.SiteWindow({
            has_generation: Type.Boolean(),
            generation_kwh: S.Kwh(),
            self_consumed_kwh: S.Kwh(),
            export_kwh: S.Kwh(),
            import_kwh: S.Kwh(),
            consumption_kwh: S.Kwh(),
            self_consumption_ratio: S.Ratio('self-consumed / generation'),
            self_sufficiency_ratio: S.Ratio('Σ max(consumption - import, 0) / Σ max(consumption, 0), each half hour'),
            complete_half_hours: Type.Integer(),
            half_hours: Type.Integer(),
            measured_half_hours: Type.Integer(),
            days: Type.Array(
              Type.Object({
                date: Type.String(),
                generation_kwh: S.Kwh(),
                self_consumed_kwh: S.Kwh(),
                export_kwh: S.Kwh(),
                consumption_kwh: S.Kwh(),
                self_consumption_ratio: S.Ratio(''),
                self_sufficiency_ratio: S.Ratio(''),
                complete_half_hours: Type.Integer(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params, query }) => se.selfConsumption(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getBatteryState',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/battery/state',
      summary: 'Battery state of a site: SoC, throughput, cycles and observed round-trip efficiency',
      description:
        "Each battery's newest state of charge (measured, with its time), and over the window: charge, discharge, throughput, equivalent full cycles (throughput / 2 / usable capacity; capacity from the site settings or the assets' `capacity_kwh` details) and the observed round-trip efficiency (discharge / charge; not corrected for a different state of charge at the window's ends).",
      dataBasis: {
        basis: 'calculated',
        method:
          'Charge and discharge from the half-hour ledger; cycles = (charge + discharge) / 2 / usable capacity; round-trip efficiency = discharge / charge over the window.',
      },
      schema: {
        ...S.SiteDays,
        response: {
          200: S.SiteWindow({
            batteries: Type.Array(
              Type.Object({
                asset_id: Type.String(),
                soc_pct: S.Nullable(Type.Number()),
                soc_at: S.Nullable(S.Timestamp),
                power_kw: S.Nullable(Type.Number()),
                capacity_kwh: S.Nullable(Type.Number()),
              }),
            ),
            capacity_kwh: S.Nullable(Type.Number()),
            capacity_source: S.Nullable(Type.String()),
            charge_kwh: S.Kwh(),
            discharge_kwh: S.Kwh(),
            throughput_kwh: S.Kwh(),
            equivalent_full_cycles: S.Nullable(Type.Number()),
            round_trip_efficiency_observed: S.Ratio('discharge / charge'),
            complete_half_hours: Type.Integer(),
            half_hours: Type.Integer(),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params, query }) => se.battery(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getPortfolioLeague',
      method: 'GET',
      path: '/api/telemetry/portfolio/league',
      summary: 'Sites ranked on a named measure',
      description:
        "Every site ranked on `measure` over the window, with the measure's definition; sites where the measure is undefined (no generation for self-consumption) are listed as unranked. Ties rank by site id. Measures: " +
        Object.entries(LEAGUE_MEASURES)
          .map(([k, v]) => `\`${k}\` (${v.definition})`)
          .join('; '),
      dataBasis: { basis: 'calculated', method: "Each site's totals over the window from its daily rollup, ranked on the measure as defined in the answer." },
      schema: {
        query: Type.Object({
          measure: Type.Optional(LiteralUnion(Object.keys(LEAGUE_MEASURES) as LeagueMeasure[])),
          ...S.DayQuery,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: {
          200: Type.Object({
            measure: Type.String(),
            definition: Type.String(),
            unit: Type.String(),
            higher_is_better: Type.Boolean(),
            ...Window,
            league: Type.Array(
              Type.Object({
                rank: Type.Integer(),
                site_id: Type.String(),
                value: Type.Number(),
                generation_kwh: S.Kwh(),
                consumption_kwh: S.Kwh(),
                import_kwh: S.Kwh(),
                export_kwh: S.Kwh(),
                data_completeness: S.Ratio(''),
              }),
            ),
            unranked: Type.Array(Type.String()),
          }),
        },
      },
      handler: ({ ctx, query }) => se.league(ctx, query),
    }),
    op({
      operationId: 'getSiteCapacity',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/capacity',
      summary: 'Peak import against the agreed capacity',
      description:
        'Half-hour demand (import energy × 2, the average kW of the half hour, as supply capacity is judged) against the agreed capacity from the site settings: the peak, utilisation, headroom, half hours over capacity and the ten largest half hours.',
      dataBasis: {
        basis: 'calculated',
        method: 'Demand of a half hour = its import energy × 2 (average kW); compared with the agreed capacity as configured.',
      },
      schema: {
        ...S.SiteDays,
        response: {
          200: S.SiteWindow({
            agreed_capacity_kw: S.Nullable(Type.Number()),
            peak_import_kw: S.Nullable(Type.Number()),
            peak_at: S.Nullable(S.Timestamp),
            utilisation: S.Nullable(Type.Number()),
            headroom_kw: S.Nullable(Type.Number()),
            half_hours_over_capacity: S.Nullable(Type.Integer()),
            peaks: Type.Array(
              Type.Object({
                period_start: S.Timestamp,
                settlement_date: Type.String(),
                settlement_period: Type.Integer(),
                import_kwh: S.Kwh(),
                demand_kw: Type.Number(),
                basis: Type.String(),
                complete: Type.Boolean(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params, query }) => se.capacity(ctx, params.site_id, query),
    }),
    op({
      operationId: 'getCapacityPeaks',
      method: 'GET',
      path: '/api/telemetry/sites/{site_id}/capacity/peaks',
      summary: 'Peak-shaving what-if for a battery size',
      description:
        'Given `battery_kwh` (usable) and `battery_kw`, which half hours over the target (`target_kw`, default the agreed capacity) would have been shaved and by how much: the battery starts full, discharges to hold demand at the target and recharges from headroom below it. Losses are ignored. At most 62 days.',
      dataBasis: {
        basis: 'calculated',
        method:
          'Half-hour demand from the ledger replayed against a simulated battery (full at the start, lossless) that discharges above the target and recharges below it.',
      },
      schema: {
        params: S.SiteParams,
        query: Type.Object({
          ...S.DayQuery,
          battery_kwh: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
          battery_kw: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
          target_kw: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })),
        }),
        response: {
          200: S.SiteWindow({
            target_kw: Type.Number(),
            target_source: Type.String(),
            battery_kwh: Type.Number(),
            battery_kw: Type.Number(),
            half_hours_over_target: Type.Integer(),
            half_hours_fully_shaved: Type.Integer(),
            peak_before_kw: S.Nullable(Type.Number()),
            peak_after_kw: S.Nullable(Type.Number()),
            peaks: Type.Array(
              Type.Object({
                period_start: S.Timestamp,
                settlement_date: Type.String(),
                settlement_period: Type.Integer(),
                demand_kw: Type.Number(),
                shaved_demand_kw: Type.Number(),
                shaved_kw: Type.Number(),
                battery_kwh_after: Type.Number(),
              }),
            ),
          }),
          404: ErrorResponse,
        },
      },
      handler: ({ ctx, params, query }) => se.peaks(ctx, params.site_id, query),
    }),
    // ---- EMS sites and settings ----------------------------------------------------------------
    op({
      operationId: 'listEmsSites',
      method: 'GET',
      path: '/api/hardware/ems/sites',
      summary: 'EMS sites with their settings',
      description:
        'Every site with a registered asset, whether its EMS settings are set, and the settings (agreed capacity, PV, operating hours, tariff, battery, PPA contracts).',
      tags: ems,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ sites: Type.Array(Type.Object({ ...SettingsAnswer.properties, assets: Type.Integer() })) }) } },
      handler: async ({ ctx }) => {
        const sites = await model.allSites(db, ctx.orgId);
        const out = [];
        for (const s of sites) out.push({ site_id: s.siteId, assets: s.assets.length, ...(await st.read(ctx.orgId, s.siteId)) });
        return { sites: out };
      },
    }),
    op({
      operationId: 'getEmsSiteSettings',
      method: 'GET',
      path: '/api/hardware/ems/sites/{site_id}/settings',
      summary: 'EMS settings of a site',
      description: 'The settings as set; members never set are null (or empty lists), and `configured` says whether the site has settings at all.',
      tags: ems,
      dataBasis: { basis: 'configured' },
      schema: { params: S.SiteParams, response: { 200: SettingsAnswer, 404: ErrorResponse } },
      handler: ({ ctx, params }) => st.get(ctx, params.site_id),
    }),
    op({
      operationId: 'putEmsSiteSettings',
      method: 'PUT',
      path: '/api/hardware/ems/sites/{site_id}/settings',
      summary: 'Replace the EMS settings of a site',
      description:
        'Replaces every setting (send the whole object). PPA contract ids must be unique and end dates not before start dates; operating hours end after they start (UK local time). Audited (`ems.site_settings.update`).',
      tags: ems,
      access: BEARER.configure,
      schema: { params: S.SiteParams, body: SettingsBody, response: { 200: SettingsAnswer, 404: ErrorResponse } },
      handler: ({ ctx, params, body }) => st.put(ctx, params.site_id, body),
    }),
  ];
}
