// Helpers for the connect tests: tokens, requests and telemetry seeding through HTTP.
import type { TestService } from '../helpers/service.ts';
import { json } from '../helpers/service.ts';
import type { Role } from '../../src/platform/roles.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

export const LONG = '3650d';
export const clockOf = (svc: TestService) => svc.clock as ManualClock;

export async function tokenFor(svc: TestService, orgId: string, role: Role = 'ORG_ADMIN') {
  return svc.token({ orgId, roles: [role], expiresIn: LONG });
}

export function call(svc: TestService, token: string | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  return svc.request({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload !== undefined && { payload: payload as object }),
  });
}

export async function ingest(svc: TestService, token: string, records: object[]) {
  const res = await call(svc, token, 'POST', '/api/telemetry/ingest', records);
  if (res.statusCode !== 200) throw new Error(`ingest: ${res.statusCode} ${res.body}`);
  return json(res);
}

/** Records of one device at `n` instants one minute apart, ending at `end`. */
export function series(device: string, n: number, end: Date, extra: object = {}) {
  return Array.from({ length: n }, (_, k) => ({ device_id: device, ts: new Date(end.getTime() - (n - 1 - k) * 60_000).toISOString(), ...extra }));
}
