// Fleet readiness rules: depot constraints, shift schedule, requirements from CSV, readiness and
// electrification from the planner.
import { csvRecords } from '../../kit/csv.ts';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { plan, type Constraints, type Shift, type Vehicle } from './planner.ts';
import { fleetStore as store } from './store.ts';

export const { errors: fleetErrors, docs: FLEET_ERROR_DOCS } = declareErrors({
  noConstraints: {
    status: 409,
    detail: 'Depot constraints are not set',
    code: 'fleet_depot_not_set',
    doc: 'Readiness and electrification need the depot constraints (PUT /api/fleet/depot/constraints); GET of them answers 404 until then.',
  },
  constraintsNotFound: { status: 404, detail: 'Depot constraints are not set', code: 'fleet_depot_not_set' },
});

const COLUMNS = ['vehicle_id', 'powertrain', 'battery_kwh', 'kwh_per_shift', 'max_charge_kw'];
const DEC = /^(0|[1-9][0-9]{0,5})(\.[0-9]{1,3})?$/;
const MAX_VEHICLES = 2000;
/** Errors named in a refusal. */
const MAX_ERRORS = 100;

export async function parseRequirements(text: string): Promise<{ vehicles: Vehicle[]; errors: { line: number; column: string | null; message: string }[] }> {
  const errs: { line: number; column: string | null; message: string }[] = [];
  let recs: string[][];
  let lines: number[];
  try {
    // The header, at most MAX_VEHICLES rows and one more to tell; no more bad-width rows than are named.
    ({ records: recs, lines } = await csvRecords(text, { maxRecords: MAX_VEHICLES + 2, maxWrongWidth: MAX_ERRORS }));
  } catch (e) {
    return { vehicles: [], errors: [{ line: (e as { lines?: number }).lines ?? 1, column: null, message: 'not valid CSV' }] };
  }
  if (!recs.length || recs[0]!.map((x) => x.toLowerCase()).join(',') !== COLUMNS.join(','))
    return { vehicles: [], errors: [{ line: 1, column: null, message: `header must be ${COLUMNS.join(',')}` }] };
  const seen = new Set<string>();
  const vehicles: Vehicle[] = [];
  recs.slice(1).forEach((r, i) => {
    const line = lines[i + 1]!;
    if (r.length !== COLUMNS.length) return void errs.push({ line, column: null, message: `expected ${COLUMNS.length} columns, found ${r.length}` });
    const [id, pt, bat, shift, kw] = r as [string, string, string, string, string];
    if (!id || id.length > 64) errs.push({ line, column: 'vehicle_id', message: 'must be 1 to 64 characters' });
    else if (seen.has(id)) errs.push({ line, column: 'vehicle_id', message: `${id} is listed twice` });
    seen.add(id);
    if (pt !== 'ev' && pt !== 'ice') errs.push({ line, column: 'powertrain', message: 'must be ev or ice' });
    for (const [col, v] of [
      ['battery_kwh', bat],
      ['kwh_per_shift', shift],
      ['max_charge_kw', kw],
    ] as const)
      if (!DEC.test(v)) errs.push({ line, column: col, message: 'must be a non-negative decimal number' });
    vehicles.push({ vehicle_id: id, powertrain: pt as 'ev', battery_kwh: Number(bat), kwh_per_shift: Number(shift), max_charge_kw: Number(kw) });
  });
  if (recs.length - 1 > MAX_VEHICLES) errs.unshift({ line: lines[MAX_VEHICLES + 1]!, column: null, message: `at most ${MAX_VEHICLES} vehicles` });
  if (recs.length === 1) errs.push({ line: 2, column: null, message: 'no vehicles' });
  return { vehicles, errors: errs.slice(0, MAX_ERRORS) };
}

export function createFleet(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  async function inputs(orgId: string) {
    const c = await store.constraints(db, orgId);
    if (!c) throw fleetErrors.noConstraints();
    return { c: c.constraints, vehicles: (await store.vehicles(db, orgId))?.vehicles ?? [], shifts: (await store.shifts(db, orgId))?.shifts ?? [] };
  }
  return {
    async depot(ctx: RequestContext) {
      const c = await store.constraints(db, ctx.orgId);
      const v = await store.vehicles(db, ctx.orgId);
      const s = await store.shifts(db, ctx.orgId);
      const vs = v?.vehicles ?? [];
      return {
        configured: !!c,
        connection_kw: c?.constraints.connection_kw ?? null,
        available_kw: c ? Math.max(0, c.constraints.connection_kw - c.constraints.base_load_kw) : null,
        chargers: c?.constraints.chargers ?? [],
        charger_kw_total: (c?.constraints.chargers ?? []).reduce((a, x) => a + x.max_kw, 0),
        vehicles: { ev: vs.filter((x) => x.powertrain === 'ev').length, ice: vs.filter((x) => x.powertrain === 'ice').length },
        shifts: s?.shifts.length ?? 0,
        requirements_imported_at: isoTimeOrNull(v?.imported_at),
      };
    },
    async getConstraints(ctx: RequestContext) {
      const c = await store.constraints(db, ctx.orgId);
      if (!c) throw fleetErrors.constraintsNotFound();
      return { ...c.constraints, updated_at: isoTime(c.updated_at) };
    },
    async putConstraints(
      ctx: RequestContext,
      body: { connection_kw: number; base_load_kw?: number; reserve_pct?: number; chargers: { charger_id: string; max_kw: number }[] },
    ) {
      const ids = new Set<string>();
      body.chargers.forEach((ch, i) => {
        if (ids.has(ch.charger_id)) throw errors.validation([fieldError(['body', 'chargers', i, 'charger_id'], 'charger_id is listed twice', ch.charger_id)]);
        ids.add(ch.charger_id);
      });
      if ((body.base_load_kw ?? 0) > body.connection_kw)
        throw errors.validation([fieldError(['body', 'base_load_kw'], 'must not exceed connection_kw', body.base_load_kw)]);
      const c: Constraints = {
        connection_kw: body.connection_kw,
        base_load_kw: body.base_load_kw ?? 0,
        reserve_pct: body.reserve_pct ?? 10,
        chargers: body.chargers,
      };
      const now = clock.now();
      await store.putConstraints(db, ctx.orgId, c, now);
      return { ...c, updated_at: isoTime(now) };
    },
    async getShifts(ctx: RequestContext) {
      const s = await store.shifts(db, ctx.orgId);
      return { shifts: s?.shifts ?? [], updated_at: isoTimeOrNull(s?.updated_at) };
    },
    async putShifts(ctx: RequestContext, body: { shifts: Shift[] }) {
      const ids = new Set<string>();
      body.shifts.forEach((s, i) => {
        if (ids.has(s.vehicle_id)) throw errors.validation([fieldError(['body', 'shifts', i, 'vehicle_id'], 'vehicle has a shift already', s.vehicle_id)]);
        if (s.depart === s.return) throw errors.validation([fieldError(['body', 'shifts', i, 'return'], 'must differ from depart', s.return)]);
        ids.add(s.vehicle_id);
      });
      const now = clock.now();
      await store.putShifts(db, ctx.orgId, body.shifts, now);
      return { shifts: body.shifts, updated_at: isoTime(now) };
    },
    async importRequirements(ctx: RequestContext, csv: string) {
      const { vehicles, errors: errs } = await parseRequirements(csv);
      if (errs.length)
        throw errors.validation(
          errs.map((e) =>
            fieldError(['body', 'csv'], `line ${e.line}${e.column ? `, column ${e.column}` : ''}: ${e.message}`, { line: e.line, column: e.column }),
          ),
        );
      const now = clock.now();
      await store.putVehicles(db, ctx.orgId, vehicles, now);
      return { imported: vehicles.length, vehicles, imported_at: isoTime(now) };
    },
    async readiness(ctx: RequestContext) {
      const { c, vehicles, shifts } = await inputs(ctx.orgId);
      const p = plan(c, vehicles, shifts, clock.now().getTime());
      return {
        generated_at: isoTime(clock.now()),
        available_kw: p.limit_kw,
        ready: p.vehicles.filter((v) => v.ready).length,
        not_ready: p.vehicles.filter((v) => !v.ready).length,
        vehicles: p.vehicles,
        slots: p.slots,
      };
    },
    async electrification(ctx: RequestContext) {
      const { c, vehicles, shifts } = await inputs(ctx.orgId);
      const now = clock.now().getTime();
      // Every vehicle as if electric, one charger per vehicle at its own max_charge_kw.
      const all = vehicles.map((v) => ({ ...v, powertrain: 'ev' as const }));
      const oneEach = (conn: number, vs = all) =>
        plan({ ...c, connection_kw: conn, chargers: vs.map((v) => ({ charger_id: `need-${v.vehicle_id}`, max_kw: v.max_charge_kw })) }, vs, shifts, now);
      const withDepot = plan({ ...c, chargers: c.chargers }, all, shifts, now);
      const unlimited = oneEach(1e7);
      const byId = new Map(unlimited.vehicles.map((v) => [v.vehicle_id, v]));
      const candidates = vehicles.map((v) => {
        const u = byId.get(v.vehicle_id)!;
        const d = withDepot.vehicles.find((x) => x.vehicle_id === v.vehicle_id)!;
        const fitsBattery =
          v.kwh_per_shift * (1 + c.reserve_pct / 100) <= v.battery_kwh || v.kwh_per_shift + (v.battery_kwh * c.reserve_pct) / 100 <= v.battery_kwh;
        const feasible = fitsBattery && u.ready;
        return {
          vehicle_id: v.vehicle_id,
          powertrain: v.powertrain,
          could_be_electric: feasible,
          ready_with_current_depot: feasible && d.ready,
          reason: !fitsBattery ? 'energy per shift plus the reserve exceeds the battery' : !u.ready ? (u.reason ?? 'cannot recharge between shifts') : null,
        };
      });
      // Smallest connection (1 kW steps, bisection) at which every feasible vehicle is ready with one charger each.
      const feasibleIds = new Set(candidates.filter((x) => x.could_be_electric).map((x) => x.vehicle_id));
      const feasible = all.filter((v) => feasibleIds.has(v.vehicle_id));
      const okAt = (conn: number) => oneEach(conn + c.base_load_kw, feasible).vehicles.every((v) => v.ready);
      let lo = 0,
        hi = Math.ceil(
          Math.max(
            1,
            unlimited.slots.reduce((a, s) => Math.max(a, s.total_kw), 0),
          ),
        );
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (okAt(mid)) hi = mid;
        else lo = mid + 1;
      }
      const needPlan = oneEach(lo + c.base_load_kw, feasible);
      const chargersNeeded = needPlan.slots.reduce((a, s) => Math.max(a, s.charging), 0);
      const needKw = lo + c.base_load_kw;
      return {
        vehicles: candidates,
        depot_needs: {
          connection_kw: needKw,
          additional_connection_kw: Math.max(0, needKw - c.connection_kw),
          chargers: chargersNeeded,
          additional_chargers: Math.max(0, chargersNeeded - c.chargers.length),
        },
      };
    },
  };
}
export type Fleet = ReturnType<typeof createFleet>;
