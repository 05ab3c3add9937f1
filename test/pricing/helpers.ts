// Shared helpers of the pricing tests: a caller per organisation and role, and half-hour series
// built from UK local days.
import type { TestService } from '../helpers/service.ts';
import { json } from '../helpers/service.ts';

export type Role = 'ORG_ADMIN' | 'OPERATOR' | 'ANALYST' | 'VIEWER';

export function caller(svc: TestService, orgId: string) {
  const tokens = new Map<Role, string>();
  const token = async (role: Role) => {
    if (!tokens.has(role)) tokens.set(role, await svc.token({ orgId, roles: [role] }));
    return tokens.get(role)!;
  };
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, role: Role = 'OPERATOR') => {
    const res = await svc.request({
      method,
      url,
      headers: { authorization: `Bearer ${await token(role)}` },
      ...(payload !== undefined && { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? json(res) : undefined, raw: res };
  };
  return {
    get: (url: string, role?: Role) => call('GET', url, undefined, role),
    post: (url: string, payload: unknown, role?: Role) => call('POST', url, payload, role),
  };
}

const HH = 30 * 60_000;

/** Every half hour (UTC start) of the UK local days [from, to), with kWh from `kwh(t)`. */
export function halfHours(from: string, to: string, kwh: (t: number) => string): { start: string; kwh: string }[] {
  const out: { start: string; kwh: string }[] = [];
  for (let t = ukMidnightOf(from); t < ukMidnightOf(to); t += HH) out.push({ start: new Date(t).toISOString(), kwh: kwh(t) });
  return out;
}

/** UK local midnight of a date, for tests: GMT in winter, BST (UTC+1) from the last Sunday of March to the last Sunday of October. */
export function ukMidnightOf(date: string): number {
  const t = Date.parse(`${date}T00:00:00Z`);
  const y = Number(date.slice(0, 4));
  const lastSunday = (month: number) => {
    const d = new Date(Date.UTC(y, month + 1, 0));
    return Date.UTC(y, month, d.getUTCDate() - d.getUTCDay());
  };
  const bst = t > lastSunday(2) && t <= lastSunday(9);
  return bst ? t - 3600_000 : t;
}

/** UK local wall-clock hour and minute of an instant, by the rule above (test's own, independent of the service). */
export function localClock(t: number): { h: number; m: number } {
  const y = new Date(t).getUTCFullYear();
  const lastSunday1am = (month: number) => {
    const d = new Date(Date.UTC(y, month + 1, 0));
    return Date.UTC(y, month, d.getUTCDate() - d.getUTCDay(), 1);
  };
  const off = t >= lastSunday1am(2) && t < lastSunday1am(9) ? 3600_000 : 0;
  const l = new Date(t + off);
  return { h: l.getUTCHours(), m: l.getUTCMinutes() };
}

// NGED West Midlands (distributor 14) bands from ../shared/upstreams.md 5.2: red 16:00-19:00,
// amber 07:30-16:00 and 19:00-21:00 on weekdays, green otherwise and all weekend.
export const WMID_BANDS = [
  { band: 'green', days: 'weekdays', from: '00:00', to: '07:30' },
  { band: 'amber', days: 'weekdays', from: '07:30', to: '16:00' },
  { band: 'red', days: 'weekdays', from: '16:00', to: '19:00' },
  { band: 'amber', days: 'weekdays', from: '19:00', to: '21:00' },
  { band: 'green', days: 'weekdays', from: '21:00', to: '24:00' },
  { band: 'green', days: 'weekends', from: '00:00', to: '24:00' },
];
