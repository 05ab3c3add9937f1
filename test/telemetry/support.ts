// Shared helpers for the telemetry tests: calls through HTTP with a token of the given role.
import type { LightMyRequestResponse } from 'fastify';
import { json, type TestService } from '../helpers/service.ts';
import type { Role } from '../../src/platform/roles.ts';

export const INGEST = '/api/telemetry/ingest';
export const LIVE = '/api/telemetry/live/events';

export function client(svc: TestService, orgId: string, role: Role = 'OPERATOR') {
  let token: Promise<string> | undefined;
  // A fresh token (a fresh user) every 50 calls keeps clear of the 100/min per-user limit.
  let calls = 0;
  const auth = async () => {
    if (!token || ++calls % 50 === 0) token = svc.token({ orgId, roles: [role] });
    return { authorization: `Bearer ${await token}` };
  };
  return {
    async ingest(payload: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
      return svc.request({
        method: 'POST',
        url: INGEST,
        headers: { ...(await auth()), 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(payload),
      });
    },
    async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
      return svc.request({ method: 'GET', url, headers: { ...(await auth()), ...headers } });
    },
    async live(query = ''): Promise<any[]> {
      const res = await svc.request({ method: 'GET', url: `${LIVE}${query}`, headers: await auth() });
      if (res.statusCode !== 200) throw new Error(`live events answered ${res.statusCode}: ${res.body}`);
      return json(res).events;
    },
  };
}

/** ISO text of clock.now() shifted by minutes. */
export function at(svc: TestService, minutes = 0): string {
  return new Date(svc.clock.now().getTime() + minutes * 60_000).toISOString();
}
