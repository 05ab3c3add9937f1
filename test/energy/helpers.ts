// Helpers for the energy tests: an organisation with a site's assets registered, telemetry sent
// through HTTP, and the refresh job run by moving the test clock.
import type { TestService } from '../helpers/service.ts';
import { json } from '../helpers/service.ts';
import type { Role } from '../../src/platform/roles.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

export const LONG = '3650d';
export const clockOf = (svc: TestService) => svc.clock as ManualClock;

export async function tokenFor(svc: TestService, orgId: string, role: Role = 'ORG_ADMIN') {
  return svc.token({ orgId, roles: [role], expiresIn: LONG });
}

export function call(svc: TestService, token: string | null, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  return svc.request({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload !== undefined && { payload: payload as object }),
  });
}

export async function asset(
  svc: TestService,
  token: string,
  a: { asset_id: string; site_id: string; asset_class: string; parent_asset_id?: string; details?: object },
) {
  const res = await call(svc, token, 'POST', '/api/twin/registry/assets', { name: a.asset_id, ...a });
  if (res.statusCode !== 201) throw new Error(`asset: ${res.statusCode} ${res.body}`);
}

/** Sends records in batches of 500 (all must be stored). */
export async function ingest(svc: TestService, token: string, records: object[]) {
  for (let i = 0; i < records.length; i += 500) {
    const res = await call(svc, token, 'POST', '/api/telemetry/ingest', records.slice(i, i + 500));
    if (res.statusCode !== 200) throw new Error(`ingest: ${res.statusCode} ${res.body.slice(0, 500)}`);
  }
}

/** Moves the clock past the refresh interval and runs due jobs (the refresh folds pending spans in). */
export async function refresh(svc: TestService) {
  clockOf(svc).advance(31_000);
  await svc.runDue();
}

export const iso = (t: number) => new Date(t).toISOString();
export const MIN = 60_000;
export const HH = 30 * MIN;

/** Counter readings every half hour from `from` to `to` inclusive, advancing `perHalfHour` kWh each. */
export function counterSeries(device: string, key: string, from: number, to: number, perHalfHour: number, start = 100) {
  const out = [];
  let v = start;
  for (let t = from; t <= to; t += HH) {
    out.push({ device_id: device, ts: iso(t), [key]: Math.round(v * 1000) / 1000 });
    v += perHalfHour;
  }
  return out;
}

/** Power samples every `stepMin` minutes from `from` to `to` inclusive at `kw(t)`. */
export function powerSeries(device: string, from: number, to: number, stepMin: number, kw: (t: number) => number) {
  const out = [];
  for (let t = from; t <= to; t += stepMin * MIN) out.push({ device_id: device, ts: iso(t), power_kw: kw(t) });
  return out;
}

export { json };
