// The synthetic device model of demo sites (demo realm rules 1-3): a scenario sets load and PV,
// devices step with time, and a device's behaviour (normal, ignores, unreachable, rejects, slow)
// decides how it takes a command. The physics is in model.ts.
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { ASSET_ID_PATTERN } from '../registry/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { controlErrors } from './errors.ts';
import { CONTROLLABLE, measure, round3, step, type Behaviour, type DeviceKind, type DeviceState, type SiteState } from './model.ts';
import { configStore, demoStore } from './store.ts';

const siteView = (site: SiteState, t: number) => {
  const m = measure(site, t);
  return {
    boundary_kw: m.boundary_kw,
    import_kw: round3(Math.max(0, m.boundary_kw)),
    export_kw: round3(Math.max(0, -m.boundary_kw)),
    direction: m.boundary_kw > 0 ? ('import' as const) : m.boundary_kw < 0 ? ('export' as const) : ('balanced' as const),
    devices: site.devices.map((d, i) => ({
      device_id: d.device_id,
      kind: d.kind,
      behaviour: d.behaviour,
      controllable: CONTROLLABLE.includes(d.kind),
      power_kw: m.devices[i]!.power_kw,
      rated_kw: d.rated_kw,
      setpoint_kw: d.setpoint_kw,
      pending_kw: d.pending_kw,
      pending_at: isoTimeOrNull(d.pending_at),
      soc_pct: d.soc_pct,
      capacity_kwh: d.capacity_kwh,
    })),
  };
};

export function createDemoModel(deps: { db: Db; clock: Clock; registry: RegistrySites }) {
  const { db, clock, registry } = deps;

  /** The model locked and stepped to now (written back by the caller). */
  async function lockedModel(q: Queryable, orgId: string, siteId: string, now: number) {
    const site = await demoStore.site(q, orgId, siteId, { forUpdate: true });
    if (!site) throw controlErrors.noModel();
    return step(site, now);
  }

  /** The site's balance now: each device's power, the boundary, the scenario and the export limit. */
  async function balanceOf(q: Queryable, orgId: string, siteId: string, known?: SiteState) {
    const site = known ?? (await demoStore.site(q, orgId, siteId));
    if (!site) throw controlErrors.noModel();
    const t = clock.now().getTime();
    const stepped = step(site, t);
    const cfg = await configStore.get(q, orgId, siteId);
    return {
      site_id: siteId,
      at: isoTime(t),
      ...siteView(stepped, t),
      scenario: { load_kw: stepped.load_kw, pv_available_kw: stepped.pv_available_kw },
      export_limit_kw: cfg?.export_limit_kw ?? null,
    };
  }

  return {
    lockedModel,
    modelOf: (q: Queryable, orgId: string, siteId: string) => demoStore.site(q, orgId, siteId),

    async scenario(
      ctx: RequestContext,
      siteId: string,
      body: {
        load_kw: number;
        pv_available_kw: number;
        pv_rated_kw?: number;
        battery_rated_kw?: number;
        battery_capacity_kwh?: number;
        battery_soc_pct?: number;
        ev_rated_kw?: number;
      },
    ) {
      const now = clock.now().getTime();
      return db.tx(async (q) => {
        let site = await demoStore.site(q, ctx.orgId, siteId, { forUpdate: true });
        if (!site && !new RegExp(ASSET_ID_PATTERN).test(`${siteId}.battery`)) {
          throw controlErrors.field(
            ['path', 'site_id'],
            'A demo site id must also make device ids: letters, digits and . _ : @ + - only, at most 119 characters',
            siteId,
          );
        }
        if (!site) {
          // Registered assets of the site lend their ids to the model's devices (decision 0180).
          const assets = await registry.assets(q, ctx.orgId, { siteId });
          const taken = new Set(
            await demoStore.deviceTaken(
              q,
              ctx.orgId,
              assets.map((a) => a.asset_id),
            ),
          );
          const pick = (classes: string[], kind: DeviceKind) =>
            assets.find((a) => a.asset_class && classes.includes(a.asset_class) && !taken.has(a.asset_id))?.asset_id ?? `${siteId}.${kind}`;
          const dev = (kind: DeviceKind, device_id: string, rated_kw: number, extra: Partial<DeviceState> = {}): DeviceState => ({
            device_id,
            kind,
            behaviour: 'normal',
            rated_kw,
            capacity_kwh: null,
            soc_pct: null,
            setpoint_kw: null,
            pending_kw: null,
            pending_at: null,
            ...extra,
          });
          const ids = [
            `${siteId}.load`,
            pick(['inverter'], 'pv'),
            pick(['battery'], 'battery'),
            pick(['charger'], 'ev'),
            pick(['site_meter', 'smart_meter'], 'meter'),
          ];
          const clash = await demoStore.deviceTaken(q, ctx.orgId, ids);
          if (clash.length) throw controlErrors.field(['path', 'site_id'], `Device ids already modelled at another site: ${clash.join(', ')}`, siteId);
          site = {
            load_kw: body.load_kw,
            pv_available_kw: body.pv_available_kw,
            stepped_at: now,
            devices: [
              dev('load', ids[0]!, Math.max(body.load_kw, 1)),
              dev('pv', ids[1]!, body.pv_rated_kw ?? 6),
              dev('battery', ids[2]!, body.battery_rated_kw ?? 5, {
                capacity_kwh: body.battery_capacity_kwh ?? 13.5,
                soc_pct: body.battery_soc_pct ?? 50,
                setpoint_kw: 0,
              }),
              dev('ev', ids[3]!, body.ev_rated_kw ?? 7.4, { setpoint_kw: 0 }),
              dev('meter', ids[4]!, 0),
            ],
          };
          await demoStore.create(q, ctx.orgId, siteId, site, clock.now());
        } else {
          site = step(site, now);
          site = {
            ...site,
            load_kw: body.load_kw,
            pv_available_kw: body.pv_available_kw,
            devices: site.devices.map((d) => {
              if (d.kind === 'pv' && body.pv_rated_kw !== undefined) return { ...d, rated_kw: body.pv_rated_kw };
              if (d.kind === 'battery')
                return {
                  ...d,
                  rated_kw: body.battery_rated_kw ?? d.rated_kw,
                  capacity_kwh: body.battery_capacity_kwh ?? d.capacity_kwh,
                  soc_pct: body.battery_soc_pct ?? d.soc_pct,
                };
              if (d.kind === 'ev' && body.ev_rated_kw !== undefined) return { ...d, rated_kw: body.ev_rated_kw };
              if (d.kind === 'load') return { ...d, rated_kw: Math.max(d.rated_kw, body.load_kw) };
              return d;
            }),
          };
          await demoStore.save(q, ctx.orgId, siteId, site);
        }
        return balanceOf(q, ctx.orgId, siteId, site);
      });
    },
    async balance(ctx: RequestContext, siteId: string) {
      return balanceOf(db, ctx.orgId, siteId);
    },

    async behaviour(ctx: RequestContext, deviceId: string, behaviour: Behaviour) {
      return db.tx(async (q) => {
        const siteId = await demoStore.deviceSite(q, ctx.orgId, deviceId);
        if (siteId === null) throw controlErrors.deviceNotFound();
        const t = clock.now().getTime();
        const site = await lockedModel(q, ctx.orgId, siteId, t);
        const next = { ...site, devices: site.devices.map((d) => (d.device_id === deviceId ? { ...d, behaviour } : d)) };
        await demoStore.save(q, ctx.orgId, siteId, next);
        const view = siteView(next, t).devices.find((d) => d.device_id === deviceId)!;
        return { site_id: siteId, ...view };
      });
    },
  };
}

export type DemoModel = ReturnType<typeof createDemoModel>;
