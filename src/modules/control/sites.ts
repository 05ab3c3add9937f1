// Sites under control and their configuration: export limitation (limit, margin), the read-back
// wait and the connection agreement. A site is known by its device model, its configuration or the
// registry; production organisations' configuration is recorded and no loop runs for them.
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { realmForId } from '../orgs/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { actorId } from './decisions.ts';
import { controlErrors } from './errors.ts';
import { type Connection, DEFAULT_MARGIN_KW, DEFAULT_SETTLE_SECONDS, LOOP_DESCRIPTION, LOOP_EVERY_MS } from './model.ts';
import { configStore, demoStore, eventStore, overrideStore, setpointStore, type ConfigRow } from './store.ts';

/** A connection agreement as sent: phases default to 1, the reference to null. */
type ConnectionIn = Omit<Connection, 'phases' | 'reference'> & { phases?: 1 | 3; reference?: string | null };

/** The realm follows from the organisation id (demo-*), so no store read is needed inside a transaction. */
export const isDemo = (orgId: string) => realmForId(orgId) === 'demo';

function configView(siteId: string, c: ConfigRow | null, demo: boolean) {
  const enabled = c?.export_limit_enabled ?? false;
  return {
    site_id: siteId,
    configured: c !== null,
    export_limitation: { enabled, limit_kw: c?.export_limit_kw ?? null, margin_kw: c ? Number(c.margin_kw) : DEFAULT_MARGIN_KW },
    settle_seconds: c?.settle_seconds ?? DEFAULT_SETTLE_SECONDS,
    connection: c?.connection ?? null,
    loop: {
      active: demo && enabled,
      every_seconds: LOOP_EVERY_MS / 1000,
      description: demo
        ? `${LOOP_DESCRIPTION} ${enabled ? 'It runs for this site.' : 'Enable export_limitation to run it for this site.'}`
        : `${LOOP_DESCRIPTION} This is a production organisation: the configuration is recorded and no loop runs.`,
    },
    updated_at: isoTimeOrNull(c?.updated_at ?? null),
    updated_by: c?.updated_by ?? null,
  };
}

export function createSites(deps: { db: Db; clock: Clock; registry: RegistrySites }) {
  const { db, clock, registry } = deps;

  /** A site is known by its device model, its control configuration or the registry. */
  async function siteKnown(q: Queryable, orgId: string, siteId: string) {
    if (await demoStore.site(q, orgId, siteId)) return true;
    if (await configStore.get(q, orgId, siteId)) return true;
    return registry.siteExists(q, orgId, siteId);
  }

  async function requireSite(q: Queryable, orgId: string, siteId: string) {
    if (!(await siteKnown(q, orgId, siteId))) throw controlErrors.siteNotFound();
  }

  return {
    siteKnown,
    requireSite,
    configOf: (q: Queryable, orgId: string, siteId: string) => configStore.get(q, orgId, siteId),

    // ---- Sites and configuration ----
    async sites(ctx: RequestContext) {
      const now = clock.now();
      const demo = isDemo(ctx.orgId);
      const [models, configs, active, lastSp, lastEv] = await Promise.all([
        demoStore.siteIds(db, ctx.orgId),
        configStore.list(db, ctx.orgId),
        overrideStore.active(db, ctx.orgId, now),
        setpointStore.lastBySite(db, ctx.orgId),
        eventStore.lastBySite(db, ctx.orgId),
      ]);
      const byCfg = new Map(configs.map((c) => [c.site_id, c]));
      const ids = [...new Set([...models, ...byCfg.keys()])].sort();
      return {
        demo_realm: demo,
        sites: ids.map((id) => {
          const c = byCfg.get(id) ?? null;
          const ev = lastEv.get(id);
          return {
            site_id: id,
            device_model: models.includes(id),
            export_limitation: {
              enabled: c?.export_limit_enabled ?? false,
              limit_kw: c?.export_limit_kw ?? null,
              loop_active: demo && (c?.export_limit_enabled ?? false),
            },
            connection: c?.connection ?? null,
            active_overrides: active.filter((o) => o.site_id === id).length,
            last_setpoint_at: isoTimeOrNull(lastSp.get(id) ?? null),
            last_export_event: ev ? { at: isoTime(ev.at), outcome: ev.outcome } : null,
          };
        }),
      };
    },

    async config(ctx: RequestContext, siteId: string) {
      await requireSite(db, ctx.orgId, siteId);
      return configView(siteId, await configStore.get(db, ctx.orgId, siteId), isDemo(ctx.orgId));
    },

    async putConfig(
      ctx: RequestContext,
      siteId: string,
      body: {
        export_limitation?: { enabled: boolean; limit_kw?: number | null; margin_kw?: number };
        settle_seconds?: number;
        connection?: ConnectionIn | null;
      },
    ) {
      const demo = isDemo(ctx.orgId);
      return db.tx(async (q) => {
        await requireSite(q, ctx.orgId, siteId);
        const cur = await configStore.get(q, ctx.orgId, siteId);
        const el = body.export_limitation;
        const connection = body.connection === undefined ? (cur?.connection ?? null) : body.connection;
        const limit = el ? (el.limit_kw ?? null) : (cur?.export_limit_kw ?? null);
        const enabled = el ? el.enabled : (cur?.export_limit_enabled ?? false);
        if (enabled && limit === null) throw controlErrors.field(['body', 'export_limitation', 'limit_kw'], 'Required when export limitation is enabled', null);
        if (limit !== null && connection && limit > connection.export_limit_kw) {
          throw controlErrors.field(
            ['body', 'export_limitation', 'limit_kw'],
            `Above the connection agreement's export limit of ${connection.export_limit_kw} kW`,
            limit,
          );
        }
        if (connection && connection.category === 'G98' && connection.phases !== 1 && connection.phases !== 3)
          throw controlErrors.field(['body', 'connection', 'phases'], 'Must be 1 or 3', connection.phases);
        const row: ConfigRow = {
          site_id: siteId,
          demo,
          export_limit_enabled: enabled,
          export_limit_kw: limit,
          margin_kw: el?.margin_kw ?? (cur ? Number(cur.margin_kw) : DEFAULT_MARGIN_KW),
          settle_seconds: body.settle_seconds ?? cur?.settle_seconds ?? DEFAULT_SETTLE_SECONDS,
          connection: connection
            ? {
                import_limit_kw: connection.import_limit_kw,
                export_limit_kw: connection.export_limit_kw,
                category: connection.category,
                phases: connection.phases ?? 1,
                reference: connection.reference ?? null,
              }
            : null,
          updated_at: clock.now(),
          updated_by: actorId(ctx),
        };
        await configStore.put(q, ctx.orgId, row);
        return configView(siteId, row, demo);
      });
    },
  };
}

export type Sites = ReturnType<typeof createSites>;
