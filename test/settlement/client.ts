// Calls to the settlement operations as a user of one organisation, and a valid issue body.
import type { TestService } from '../helpers/service.ts';
import type { Role } from '../../src/platform/roles.ts';

export const BASE = '/api/vpp/vpp/settle';

export function client(svc: TestService) {
  return async function call(method: 'GET' | 'POST' | 'DELETE', path: string, opts: { org: string; role?: Role; payload?: unknown; auth?: boolean }) {
    const headers: Record<string, string> = {};
    if (opts.auth !== false) headers.authorization = `Bearer ${await svc.token({ orgId: opts.org, roles: [opts.role ?? 'OPERATOR'] })}`;
    return svc.request({ method, url: `${BASE}${path}`, headers, ...(opts.payload !== undefined && { payload: opts.payload as object }) });
  };
}

/** A half hour of delivery, `n` half hours after 2026-03-01T00:00Z. */
export function issueBody(n = 0, over: Record<string, unknown> = {}) {
  const start = Date.parse('2026-03-01T00:00:00Z') + n * 1_800_000;
  return {
    site_id: 'site-1',
    asset_id: 'battery-1',
    reference: `dispatch-${n}`,
    period_start: new Date(start).toISOString(),
    period_end: new Date(start + 1_800_000).toISOString(),
    direction: 'turn_down',
    delivered_wh: 1250 + n,
    source_basis: 'measured',
    ...over,
  };
}
