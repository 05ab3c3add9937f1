// The world the reliability suites run in: a demo organisation with every module, users of each
// role, platform flags, and (when the developer platform is present) API keys of each scope.
import type { TestService } from '../../test/helpers/service.ts';
import { json } from '../../test/helpers/service.ts';

/** Limits raised so fuzzing measures behaviour, not throttling; providers pointed at a closed port. */
export function fuzzEnv(): Record<string, string> {
  const closed = 'http://127.0.0.1:9';
  return {
    RATE_LIMIT_AUTH_PER_MIN: '1000000',
    RATE_LIMIT_USER_PER_MIN: '1000000',
    RATE_LIMIT_ANON_PER_MIN: '1000000',
    RATE_LIMIT_DEVTOOLS_PER_MIN: '1000000',
    RATE_LIMIT_PARTNER_PER_MIN: '1000000',
    TARIFF_API_BASE_URL: closed,
    CARBON_API_BASE_URL: closed,
    UPSTREAM_TIMEOUT_MS: '500',
  };
}

export interface Credentials {
  orgId: string;
  adminToken: string;
  apiKey: string | null;
  headersFor(op: { security?: Record<string, unknown>[] }): Record<string, string>;
}

export const FUZZ_ORG = 'demo-fuzz';

export async function prepareCredentials(svc: TestService, doc: any): Promise<Credentials> {
  await svc.createOrg(FUZZ_ORG, ['field', 'crm', 'ems/routing']);
  const user = await svc.createUser(FUZZ_ORG, 'fuzz-admin@demo-fuzz.example', 'ORG_ADMIN');
  const adminToken = await svc.token({ orgId: FUZZ_ORG, roles: ['ORG_ADMIN'], userId: user.id, staff: true, admin: true });
  let apiKey: string | null = null;
  if (doc.paths['/api/devtools/apikeys']?.post) {
    const res = await svc.request({
      method: 'POST',
      url: '/api/devtools/apikeys',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { name: 'fuzz', scopes: ['alerts:read', 'devices:read', 'telemetry:read', 'telemetry:write'] },
    });
    if (res.statusCode < 300) {
      const body = json(res);
      apiKey = body.secret ?? body.key ?? body.api_key ?? null;
    }
  }
  return {
    orgId: FUZZ_ORG,
    adminToken,
    apiKey,
    headersFor(op): Record<string, string> {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.length === 0) return {};
      if (schemes.includes('apiKey') && apiKey) return { authorization: `Bearer ${apiKey}` };
      return { authorization: `Bearer ${adminToken}` };
    },
  };
}

/**
 * A settlement receipt A can issue (T-18 seeds it; T-29 issues thousands): half hour `n` after
 * 2026-01-01T00:00Z, in the past, with free text in `reference`.
 */
export function settlementIssueBody(n = 0, reference = `dispatch-${n}`) {
  const start = Date.parse('2026-01-01T00:00:00Z') + n * 1_800_000;
  return {
    site_id: 'settle-site-1',
    asset_id: `settle-asset-${n % 3}`,
    reference,
    period_start: new Date(start).toISOString(),
    period_end: new Date(start + 1_800_000).toISOString(),
    direction: n % 2 ? 'turn_up' : 'turn_down',
    delivered_wh: 1000 + (n % 997),
    source_basis: 'measured',
  };
}
