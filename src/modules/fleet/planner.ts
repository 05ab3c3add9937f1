// The depot charging planner: half-hour slots over the next 24 hours, earliest departure first.
// Each slot: the vehicles at the depot that still need energy, most urgent first, take the most
// powerful free charger at min(charger kW, vehicle kW, what they still need, connection left).
// By construction no slot has more vehicles charging than chargers, no vehicle above its charger's
// or its own limit, and the slot's total never above the connection's (test/fleet property test).

import { ukClock } from '../../kit/uk-time.ts';

export interface Charger {
  charger_id: string;
  max_kw: number;
}
export interface Constraints {
  connection_kw: number;
  base_load_kw: number;
  reserve_pct: number;
  chargers: Charger[];
}
export interface Vehicle {
  vehicle_id: string;
  battery_kwh: number;
  kwh_per_shift: number;
  max_charge_kw: number;
  powertrain: 'ev' | 'ice';
}
export interface Shift {
  vehicle_id: string;
  depart: string;
  return: string;
}

export const SLOT_MIN = 30;
export const SLOTS = 48;

/** Minutes after UK local midnight by the wall clock. */
const localMinutes = (t: number) => ukClock(t).minute;
const hm = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
/** At the depot for the whole of [a, a+30) local minutes, given return and depart times (cyclic). */
function present(start: number, ret: number, dep: number): boolean {
  const end = start + SLOT_MIN;
  const inStay = (m: number) => (ret <= dep ? m >= ret && m <= dep : m >= ret || m <= dep);
  // whole slot inside the stay: its start and end both in, and no departure strictly inside
  if (!inStay(start % 1440) || !inStay(end % 1440)) return false;
  return !(start < dep && dep < end) && !(start < dep + 1440 && dep + 1440 < end);
}

export interface VehiclePlan {
  vehicle_id: string;
  arrival_kwh: number;
  target_kwh: number;
  planned_kwh: number;
  departure_kwh: number;
  departs_at: string | null;
  ready: boolean;
  shortfall_kwh: number;
  reason: string | null;
  slots: { start: string; charger_id: string; kw: number }[];
}
export interface Plan {
  vehicles: VehiclePlan[];
  slots: { start: string; total_kw: number; charging: number }[];
  limit_kw: number;
}

const r2 = (x: number) => Math.round(x * 1000) / 1000;

export function plan(c: Constraints, vehicles: Vehicle[], shifts: Shift[], now: number): Plan {
  const startSlot = Math.floor(now / (SLOT_MIN * 60_000)) * SLOT_MIN * 60_000;
  const limit = Math.max(0, c.connection_kw - c.base_load_kw);
  const byId = new Map(shifts.map((s) => [s.vehicle_id, s]));
  const evs = vehicles.filter((v) => v.powertrain === 'ev');
  const state = evs.map((v) => {
    const s = byId.get(v.vehicle_id);
    const arrival = Math.max(0, v.battery_kwh - v.kwh_per_shift);
    const target = Math.min(v.battery_kwh, v.kwh_per_shift + (v.battery_kwh * c.reserve_pct) / 100);
    return { v, s, arrival, target, energy: arrival, departSlot: -1, departsAt: null as string | null, slots: [] as VehiclePlan['slots'] };
  });
  // Departure: the first slot boundary at or after which the vehicle is no longer present.
  for (const st of state) {
    if (!st.s) continue;
    const ret = hm(st.s.return),
      dep = hm(st.s.depart);
    let seen = false;
    for (let i = 0; i < SLOTS; i++) {
      const t = startSlot + i * SLOT_MIN * 60_000;
      const p = present(localMinutes(t), ret, dep);
      if (p) seen = true;
      else if (seen) {
        st.departSlot = i;
        break;
      }
    }
    if (seen && st.departSlot < 0) st.departSlot = SLOTS;
    // Leaving time: the next local HH:MM = depart after the last present slot.
    if (st.departSlot > 0) {
      const lastStart = startSlot + (st.departSlot - 1) * SLOT_MIN * 60_000;
      const lm = localMinutes(lastStart);
      st.departsAt = new Date(lastStart + ((dep - lm + 1440) % 1440) * 60_000).toISOString();
    }
  }
  const slotsOut: Plan['slots'] = [];
  const chargers = [...c.chargers].sort((a, b) => b.max_kw - a.max_kw || a.charger_id.localeCompare(b.charger_id));
  for (let i = 0; i < SLOTS; i++) {
    const t = startSlot + i * SLOT_MIN * 60_000;
    const lm = localMinutes(t);
    const waiting = state
      .filter((st) => st.s && i < st.departSlot && present(lm, hm(st.s.return), hm(st.s.depart)) && st.target - st.energy > 1e-9)
      .sort((a, b) => a.departSlot - b.departSlot || b.target - b.energy - (a.target - a.energy) || a.v.vehicle_id.localeCompare(b.v.vehicle_id));
    let left = limit,
      charging = 0,
      total = 0;
    for (let k = 0; k < waiting.length && k < chargers.length && left > 1e-9; k++) {
      const st = waiting[k]!,
        ch = chargers[k]!;
      const kw = Math.min(ch.max_kw, st.v.max_charge_kw, (st.target - st.energy) / (SLOT_MIN / 60), left);
      if (kw <= 1e-9) continue;
      st.energy += kw * (SLOT_MIN / 60);
      left -= kw;
      total += kw;
      charging++;
      st.slots.push({ start: new Date(t).toISOString(), charger_id: ch.charger_id, kw: r2(kw) });
    }
    slotsOut.push({ start: new Date(t).toISOString(), total_kw: r2(total), charging });
  }
  const out: VehiclePlan[] = state.map((st) => {
    const short = Math.max(0, st.target - st.energy);
    const ready = short < 1e-6;
    let reason: string | null = null;
    if (!st.s) reason = 'no shift in the schedule';
    else if (st.departSlot < 0) reason = 'not at the depot in the next 24 hours';
    else if (!ready) reason = c.chargers.length === 0 ? 'the depot has no chargers' : 'not enough charger time or connection capacity before departure';
    return {
      vehicle_id: st.v.vehicle_id,
      arrival_kwh: r2(st.arrival),
      target_kwh: r2(st.target),
      planned_kwh: r2(st.energy - st.arrival),
      departure_kwh: r2(st.energy),
      departs_at: st.departsAt,
      ready: ready && !!st.s,
      shortfall_kwh: r2(st.s ? short : st.target - st.arrival),
      reason,
      slots: st.slots,
    };
  });
  return { vehicles: out, slots: slotsOut, limit_kw: r2(limit) };
}
