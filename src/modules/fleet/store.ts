// Fleet readiness SQL: one document per organisation in each table; every query filters on org_id.
import type { Queryable } from '../../infra/db/index.ts';
import type { Constraints, Shift, Vehicle } from './planner.ts';

export const fleetStore = {
  async constraints(q: Queryable, orgId: string) {
    return (await q.query<{ constraints: Constraints; updated_at: string }>('select constraints, updated_at from fleet_depot where org_id=$1', [orgId]))
      .rows[0];
  },
  async putConstraints(q: Queryable, orgId: string, c: Constraints, now: Date) {
    await q.query(
      `insert into fleet_depot (org_id, constraints, updated_at) values ($1,$2,$3) on conflict (org_id) do update set constraints=excluded.constraints, updated_at=excluded.updated_at`,
      [orgId, JSON.stringify(c), now],
    );
  },
  async shifts(q: Queryable, orgId: string) {
    return (await q.query<{ shifts: Shift[]; updated_at: string }>('select shifts, updated_at from fleet_shift_schedule where org_id=$1', [orgId])).rows[0];
  },
  async putShifts(q: Queryable, orgId: string, s: Shift[], now: Date) {
    await q.query(
      `insert into fleet_shift_schedule (org_id, shifts, updated_at) values ($1,$2,$3) on conflict (org_id) do update set shifts=excluded.shifts, updated_at=excluded.updated_at`,
      [orgId, JSON.stringify(s), now],
    );
  },
  async vehicles(q: Queryable, orgId: string) {
    return (await q.query<{ vehicles: Vehicle[]; imported_at: string }>('select vehicles, imported_at from fleet_requirements where org_id=$1', [orgId]))
      .rows[0];
  },
  async putVehicles(q: Queryable, orgId: string, v: Vehicle[], now: Date) {
    await q.query(
      `insert into fleet_requirements (org_id, vehicles, imported_at) values ($1,$2,$3) on conflict (org_id) do update set vehicles=excluded.vehicles, imported_at=excluded.imported_at`,
      [orgId, JSON.stringify(v), now],
    );
  },
};
