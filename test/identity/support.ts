// Helpers for the identity, access and audit tests: sign-in through HTTP, decoding tokens, and a
// second app instance on the same store.
import { decodeJwt } from 'jose';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startTestService, json, type TestService, type TestServiceOptions } from '../helpers/service.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

export const PASSWORD = 'correct-horse-battery-staple';
/** Tests that are not about the shared authentication limit lift it. */
export const NO_AUTH_LIMIT = { RATE_LIMIT_AUTH_PER_MIN: '100000', RATE_LIMIT_USER_PER_MIN: '100000' };

export function startService(opts: TestServiceOptions = {}): Promise<TestService> {
  return startTestService({ ...opts, env: { ...NO_AUTH_LIMIT, ...opts.env } });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const clockOf = (svc: TestService) => svc.clock as ManualClock;
export const claims = (token: string) => decodeJwt(token) as Record<string, any>;

export interface Instance {
  request(o: InjectOptions): Promise<LightMyRequestResponse>;
  stop(): Promise<void>;
}

/** Another instance of the service on the same store, cache and bus. */
export async function secondInstance(svc: TestService, env: Record<string, string> = NO_AUTH_LIMIT): Promise<Instance> {
  const other = await startTestService({ shareWith: svc, env });
  return { request: (o) => other.request(o), stop: () => other.stop() };
}

export async function login(
  target: { request(o: InjectOptions): Promise<LightMyRequestResponse> },
  email: string,
  password = PASSWORD,
  organisation_id?: string,
) {
  const res = await target.request({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, ...(organisation_id && { organisation_id }) },
  });
  return { status: res.statusCode, body: json(res), res };
}

/** Signs in and returns the token pair; fails the test on anything but 200. */
export async function signIn(svc: TestService, email: string, organisation_id?: string) {
  const r = await login(svc, email, PASSWORD, organisation_id);
  if (r.status !== 200) throw new Error(`login ${email}: ${r.status} ${r.res.body}`);
  return r.body as { access_token: string; refresh_token: string; roles: string[]; organisation_id: string };
}

/** The organisation's audit entries (newest first), read through the API by an admin token. */
export async function auditEntries(svc: TestService, adminToken: string, query = '') {
  const res = await svc.request({ method: 'GET', url: `/api/hardware/admin/audit-log?limit=200${query}`, headers: bearer(adminToken) });
  if (res.statusCode !== 200) throw new Error(`audit-log: ${res.statusCode} ${res.body}`);
  return json(res).entries as { action: string; actor_id: string | null; details: any; target_id: string | null }[];
}
