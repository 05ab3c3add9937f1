// Helpers for the control tests: tokens and requests through HTTP.
import assert from 'node:assert/strict';
import type { TestService } from '../helpers/service.ts';
import { json } from '../helpers/service.ts';
import type { Role } from '../../src/platform/roles.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

export const clockOf = (svc: TestService) => svc.clock as ManualClock;

export function tokenFor(svc: TestService, orgId: string, role: Role = 'ORG_ADMIN', userId?: string) {
  return svc.token({ orgId, roles: [role], expiresIn: '3650d', ...(userId && { userId }) });
}

export function call(svc: TestService, token: string | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  return svc.request({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload !== undefined && { payload: payload as object }),
  });
}

/** The call answered `status`; its body. */
export async function ok(svc: TestService, token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, status = 200) {
  const res = await call(svc, token, method, url, payload);
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
  return json(res);
}

/** Replays every decision of the organisation and asserts each reproduces; returns how many. */
export async function replayAll(svc: TestService, token: string): Promise<number> {
  let cursor: string | null = null;
  let n = 0;
  do {
    const page: any = await ok(svc, token, 'GET', `/api/hardware/ems/decisions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const d of page.decisions) {
      const r = await ok(svc, token, 'POST', `/api/hardware/ems/decisions/${d.decision_id}/replay`);
      assert.equal(r.replayable, true, `${d.kind} ${d.decision_id}`);
      assert.equal(r.same, true, `${d.kind} ${d.decision_id} differs: ${JSON.stringify(r.differences)}`);
      assert.deepEqual(r.differences, []);
      n++;
    }
    cursor = page.next_cursor;
  } while (cursor);
  return n;
}
