// Load sharing (demo realm): the site's capacity split across its open transactions, each charger sent SetChargingProfile (typed by the generated OCPP types).
import type { RequestContext } from '../../../platform/operation.ts';
import type { OcppCall } from '../ocpp.ts';
import { hubStore as store } from '../store.ts';
import { errors } from '../../../platform/errors.ts';
import { hubErrors } from '../errors.ts';
import { type HubDeps, LOAD_SHARING_METHOD, num, siteOr404 } from './shared.ts';

export function createLoadSharingService(deps: HubDeps) {
  const { db, gateway } = deps;
  return {
    async loadSharing(ctx: RequestContext, siteId: string, body: { capacity_kw?: number }) {
      if ((await deps.orgs.realmOf(ctx.orgId)) !== 'demo') throw errors.demoRealmOnly();
      const site = await siteOr404(db, ctx.orgId, siteId);
      const capacity = body.capacity_kw ?? num(site.capacity_kw);
      if (capacity === null) throw hubErrors.noCapacity();
      const open = await store.openTransactions(db, ctx.orgId, siteId);
      const cps = new Map((await store.chargePointsOfSite(db, ctx.orgId, siteId)).map((c) => [c.charge_point_id, c]));
      // Equal shares, capped at each charger's rating; what a capped one leaves goes to the others.
      const limits = new Map<string, number>();
      let left = capacity;
      let todo = open.filter((t) => cps.has(t.charge_point_id));
      while (todo.length) {
        const share = left / todo.length;
        const capped = todo.filter((t) => Number(cps.get(t.charge_point_id)!.max_power_kw) <= share);
        if (!capped.length) {
          for (const t of todo) limits.set(t.transaction_id, share);
          break;
        }
        for (const t of capped) {
          const rated = Number(cps.get(t.charge_point_id)!.max_power_kw);
          limits.set(t.transaction_id, rated);
          left -= rated;
        }
        todo = todo.filter((t) => !capped.includes(t));
      }
      const sessions = [];
      for (const t of open) {
        const cp = cps.get(t.charge_point_id);
        const limitKw = Math.floor((limits.get(t.transaction_id) ?? 0) * 1000) / 1000;
        const w = Math.floor(limitKw * 1000);
        const call: OcppCall =
          t.ocpp_version === 'ocpp1.6'
            ? {
                version: 'ocpp1.6',
                action: 'SetChargingProfile',
                params: {
                  connectorId: t.connector_id,
                  csChargingProfiles: {
                    chargingProfileId: 1,
                    transactionId: Number(t.ocpp_transaction_id),
                    stackLevel: 0,
                    chargingProfilePurpose: 'TxProfile',
                    chargingProfileKind: 'Absolute',
                    chargingSchedule: { chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: w }] },
                  },
                },
              }
            : {
                version: 'ocpp2.0.1',
                action: 'SetChargingProfile',
                params: {
                  evseId: t.connector_id,
                  chargingProfile: {
                    id: 1,
                    stackLevel: 0,
                    chargingProfilePurpose: 'TxProfile',
                    chargingProfileKind: 'Absolute',
                    transactionId: t.ocpp_transaction_id,
                    chargingSchedule: [{ id: 1, chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: w }] }],
                  },
                },
              };
        const out = cp
          ? await gateway.command(ctx.orgId, cp, call)
          : { delivery: 'not_connected' as const, result: null, error: 'Charge point not registered' };
        sessions.push({
          transaction_id: t.transaction_id,
          charge_point_id: t.charge_point_id,
          connector_id: t.connector_id,
          limit_kw: limitKw,
          delivery: out.delivery,
          charger_status: typeof out.result?.status === 'string' ? out.result.status : null,
          error: out.error,
        });
      }
      return { site_id: siteId, capacity_kw: capacity, sessions, data_basis: { basis: 'calculated' as const, method: LOAD_SHARING_METHOD } };
    },
  };
}
