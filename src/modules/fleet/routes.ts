// Fleet readiness (endpoints.md 4.5): depot, constraints, shift schedule, requirements, readiness.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { bodyTo } from '../../platform/resource.ts';
import { Nullable, Timestamp, ErrorResponse } from '../../platform/schema-kit.ts';
import type { Fleet } from './service.ts';

const tags = ['fleet'];
const Kw = (d: string) => Type.Number({ minimum: 0, maximum: 100_000, description: d });
const HHMM = (d: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: `${d}, HH:MM UK local time` });
const VehicleId = Type.String({ minLength: 1, maxLength: 64, description: 'Fleet number or registration' });
const PLAN_METHOD =
  'Half-hour slots over the next 24 hours (UK local time for shift times): vehicles at the depot that need energy, earliest departure first, take the most powerful free charger at min(charger kW, vehicle max_charge_kW, energy still needed per half hour, connection_kw - base_load_kw left in the slot). Arrival energy = battery - energy per shift; target = min(battery, energy per shift + reserve_pct of battery).';

const Charger = Type.Object({ charger_id: Type.String({ minLength: 1, maxLength: 64 }), max_kw: Kw('Charger power, kW') }, { additionalProperties: false });
const ConstraintsBody = Type.Object(
  {
    connection_kw: Kw('Depot import capacity, kW'),
    base_load_kw: Type.Optional(Kw('Load other than charging the depot always draws, kW (default 0)')),
    reserve_pct: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100, description: "Charge kept in reserve above the shift's energy, per cent of the battery (default 10)" }),
    ),
    chargers: Type.Array(Charger, { maxItems: 500 }),
  },
  { additionalProperties: false },
);
const ConstraintsOut = Type.Object({
  connection_kw: Type.Number(),
  base_load_kw: Type.Number(),
  reserve_pct: Type.Number(),
  chargers: Type.Array(Charger),
  updated_at: Timestamp,
});
const Shift = Type.Object({ vehicle_id: VehicleId, depart: HHMM('Departure'), return: HHMM('Return to the depot') }, { additionalProperties: false });
const Vehicle = Type.Object({
  vehicle_id: Type.String(),
  powertrain: Type.Union([Type.Literal('ev'), Type.Literal('ice')]),
  battery_kwh: Type.Number(),
  kwh_per_shift: Type.Number(),
  max_charge_kw: Type.Number(),
});

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function fleetOperations(f: Fleet) {
  return [
    op({
      operationId: 'getFleetDepot',
      method: 'GET',
      path: '/api/fleet/depot',
      summary: 'The depot: chargers, connection capacity, vehicles and shifts held',
      description:
        'Summary of the depot: whether its constraints are set, connection and available kW, chargers, vehicle counts by powertrain, shifts held and when requirements were imported.',
      dataBasis: {
        basis: 'calculated',
        method:
          "available_kw is connection_kw − base_load_kw (not below 0), charger_kw_total the sum of the chargers' max_kw, and the counts those of the stored requirements and shifts.",
      },
      schema: {
        response: {
          200: Type.Object({
            configured: Type.Boolean({ description: 'False until the constraints are set' }),
            connection_kw: Nullable(Type.Number()),
            available_kw: Nullable(Type.Number({ description: 'connection_kw - base_load_kw' })),
            chargers: Type.Array(Charger),
            charger_kw_total: Type.Number(),
            vehicles: Type.Object({ ev: Type.Integer(), ice: Type.Integer() }),
            shifts: Type.Integer(),
            requirements_imported_at: Nullable(Timestamp),
          }),
        },
      },
      handler: async ({ ctx }) => f.depot(ctx),
    }),
    op({
      operationId: 'getFleetDepotConstraints',
      method: 'GET',
      path: '/api/fleet/depot/constraints',
      summary: "The depot's connection, base load, reserve and chargers",
      description: "The depot's constraints. 404 until set.",
      schema: { response: { 200: ConstraintsOut, 404: ErrorResponse } },
      handler: async ({ ctx }) => f.getConstraints(ctx),
    }),
    op({
      operationId: 'putFleetDepotConstraints',
      method: 'PUT',
      path: '/api/fleet/depot/constraints',
      summary: "Set the depot's connection, base load, reserve and chargers",
      description: 'Replaces the constraints. Charger ids must be unique; base_load_kw must not exceed connection_kw.',
      access: BEARER.configure,
      schema: bodyTo(ConstraintsBody, ConstraintsOut),
      handler: async ({ ctx, body }) => f.putConstraints(ctx, body),
    }),
    op({
      operationId: 'getFleetShiftSchedule',
      method: 'GET',
      path: '/api/fleet/shift-schedule',
      summary: 'The daily shift schedule: when each vehicle leaves and returns',
      description: 'The daily shift schedule; empty with updated_at null until set.',
      schema: { response: { 200: Type.Object({ shifts: Type.Array(Shift), updated_at: Nullable(Timestamp) }) } },
      handler: async ({ ctx }) => f.getShifts(ctx),
    }),
    op({
      operationId: 'putFleetShiftSchedule',
      method: 'PUT',
      path: '/api/fleet/shift-schedule',
      summary: 'Replace the daily shift schedule',
      description: 'Replaces the schedule: one shift per vehicle, depart and return in UK local time, not equal.',
      access: BEARER.configure,
      schema: {
        body: Type.Object({ shifts: Type.Array(Shift, { maxItems: 2000 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ shifts: Type.Array(Shift), updated_at: Nullable(Timestamp) }) },
      },
      handler: async ({ ctx, body }) => f.putShifts(ctx, body),
    }),
    op({
      operationId: 'importFleetRequirements',
      method: 'POST',
      path: '/api/fleet/requirements/import',
      summary: 'Replace the vehicle requirements from CSV',
      description:
        'Header `vehicle_id,powertrain,battery_kwh,kwh_per_shift,max_charge_kw`; powertrain `ev` or `ice` (for an `ice` vehicle, battery and charge power are those of its electric replacement). Every bad row is named in the 422 ("line N, column C: ..."; line 1 is the header); nothing is stored unless every row is good. Send the file as it is (`Content-Type: text/csv`, UTF-8) or as JSON `{"csv": "..."}`.',
      access: BEARER.configure,
      csvBody: { member: 'csv', description: 'The requirements file, UTF-8 (a byte order mark is dropped), LF or CRLF line ends; line 1 the header.' },
      schema: {
        body: Type.Object({ csv: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'CSV text' }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ imported: Type.Integer(), vehicles: Type.Array(Vehicle), imported_at: Timestamp }) },
      },
      handler: async ({ ctx, body }) => f.importRequirements(ctx, body.csv),
    }),
    op({
      operationId: 'getFleetReadiness',
      method: 'GET',
      path: '/api/fleet/readiness',
      summary: 'Will each electric vehicle have enough charge for its next departure, and the charging plan that gets it there',
      description:
        "For each electric vehicle in the requirements: arrival and target energy, the half-hourly charging plan, departure energy and time, ready or the shortfall and why; and the depot's load per slot. 409 until the depot constraints are set.",
      dataBasis: { basis: 'calculated', method: PLAN_METHOD },
      schema: {
        response: {
          200: Type.Object({
            generated_at: Timestamp,
            available_kw: Type.Number(),
            ready: Type.Integer(),
            not_ready: Type.Integer(),
            vehicles: Type.Array(
              Type.Object({
                vehicle_id: Type.String(),
                arrival_kwh: Type.Number(),
                target_kwh: Type.Number(),
                planned_kwh: Type.Number(),
                departure_kwh: Type.Number(),
                departs_at: Nullable(Timestamp),
                ready: Type.Boolean(),
                shortfall_kwh: Type.Number(),
                reason: Nullable(Type.String()),
                slots: Type.Array(Type.Object({ start: Timestamp, charger_id: Type.String(), kw: Type.Number() })),
              }),
            ),
            slots: Type.Array(Type.Object({ start: Timestamp, total_kw: Type.Number(), charging: Type.Integer() })),
          }),
          409: ErrorResponse,
        },
      },
      handler: async ({ ctx }) => f.readiness(ctx),
    }),
    op({
      operationId: 'getFleetElectrification',
      method: 'GET',
      path: '/api/fleet/readiness/electrification',
      summary: 'Which vehicles could be electric today given their duty cycles, and what the depot would need',
      description:
        "For every vehicle (ICE with the figures of its electric replacement): could it be electric on its duty cycle, is it ready with today's depot; and the connection and chargers the depot would need for all feasible vehicles. 409 until the depot constraints are set.",
      dataBasis: {
        basis: 'calculated',
        method:
          PLAN_METHOD +
          ' Every vehicle planned as electric with a charger each; the connection needed is the smallest (1 kW steps) at which every feasible vehicle is ready.',
      },
      schema: {
        response: {
          200: Type.Object({
            vehicles: Type.Array(
              Type.Object({
                vehicle_id: Type.String(),
                powertrain: Type.String(),
                could_be_electric: Type.Boolean(),
                ready_with_current_depot: Type.Boolean(),
                reason: Nullable(Type.String()),
              }),
            ),
            depot_needs: Type.Object({
              connection_kw: Type.Number(),
              additional_connection_kw: Type.Number(),
              chargers: Type.Integer(),
              additional_chargers: Type.Integer(),
            }),
          }),
          409: ErrorResponse,
        },
      },
      handler: async ({ ctx }) => f.electrification(ctx),
    }),
  ];
}
