// Helpers for the developer-platform tests: keys, endpoints, the job queue, and a webhook receiver
// that verifies Platform-Signature independently (written from concepts.md section 6, rule 4).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type http from 'node:http';
import { startTestService, json, realServers, type TestService, type TestServiceOptions } from '../helpers/service.ts';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../helpers/fake-server.ts';
import type { ManualClock } from '../../src/platform/clock.ts';
import type { Role } from '../../src/platform/roles.ts';

export const READ = ['alerts:read', 'devices:read', 'telemetry:read'];

export const clockOf = (svc: TestService) => svc.clock as ManualClock;

/** Moves the clock to `at` (epoch ms) and runs every job due then. */
export async function runAt(svc: TestService | TestService[], at: number): Promise<void> {
  const all = Array.isArray(svc) ? svc : [svc];
  clockOf(all[0]).set(at);
  await Promise.all(all.map((s) => s.runDue()));
}

export async function bearer(svc: TestService, orgId: string, roles: Role[] = ['ORG_ADMIN']) {
  return { authorization: `Bearer ${await svc.token({ orgId, roles })}` };
}

export async function issueKey(
  svc: TestService,
  orgId: string,
  opts: { scopes?: string[]; environment?: 'live' | 'sandbox'; expires_at?: string; name?: string } = {},
): Promise<{ id: string; secret: string; auth: { authorization: string } }> {
  const res = await svc.request({
    method: 'POST',
    url: `/api/devtools/apikeys${opts.environment === 'sandbox' ? '?environment=sandbox' : ''}`,
    headers: await bearer(svc, orgId),
    payload: { name: opts.name ?? 'test key', scopes: opts.scopes ?? READ, ...(opts.expires_at && { expires_at: opts.expires_at }) },
  });
  if (res.statusCode !== 201) throw new Error(`issueKey: ${res.statusCode} ${res.body}`);
  const body = json(res);
  return { id: body.id, secret: body.secret, auth: { authorization: `Bearer ${body.secret}` } };
}

export async function registerEndpoint(
  svc: TestService,
  orgId: string,
  url: string,
  opts: { environment?: 'live' | 'sandbox'; event_types?: string[] } = {},
): Promise<{ id: string; secret: string }> {
  const res = await svc.request({
    method: 'POST',
    url: `/api/devtools/webhooks${opts.environment === 'sandbox' ? '?environment=sandbox' : ''}`,
    headers: await bearer(svc, orgId),
    payload: { url, ...(opts.event_types && { event_types: opts.event_types }) },
  });
  if (res.statusCode !== 201) throw new Error(`registerEndpoint: ${res.statusCode} ${res.body}`);
  return { id: json(res).id, secret: json(res).secret };
}

export async function deliveries(svc: TestService, orgId: string, endpointId: string, query = '') {
  const res = await svc.request({ method: 'GET', url: `/api/devtools/webhooks/${endpointId}/deliveries${query}`, headers: await bearer(svc, orgId) });
  if (res.statusCode !== 200) throw new Error(`deliveries: ${res.statusCode} ${res.body}`);
  return json(res);
}

export async function partnerAlerts(svc: TestService, key: { authorization: string }) {
  const res = await svc.request({ method: 'GET', url: '/api/devtools/partner/v1/alerts?limit=200', headers: key });
  if (res.statusCode !== 200) throw new Error(`alerts: ${res.statusCode} ${res.body}`);
  return json(res).alerts as { type: string; status: string; subject: { id: string } | null; resolution: string | null }[];
}

/** Independent verifier of `Platform-Signature: t=<unix>,v1=<base64>[,v1=...]`. */
export function verifySignature(header: string | undefined, body: string, secret: string, nowSeconds: number): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim());
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (!t || !/^\d+$/.test(t) || Math.abs(nowSeconds - Number(t)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${t}.${body}`).digest();
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const given = Buffer.from(p.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export type Answer = number | ((req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>);

/** A webhook receiver on loopback answering from a script (the last answer repeats). */
export type Receiver = FakeServer & { script(a: Answer[]): void };

export async function startReceiver(answers: Answer[] = [200]): Promise<Receiver> {
  let script = answers;
  let n = 0;
  const server = await startFakeServer(async (req, res) => {
    const a = script[Math.min(n++, script.length - 1)];
    if (typeof a === 'number') {
      res.writeHead(a, a >= 300 && a < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : {});
      res.end('{}');
    } else await a(req, res);
  });
  return Object.assign(server, {
    script(a: Answer[]) {
      script = a;
      n = 0;
    },
  });
}

/**
 * Two services on one store, one after the other (a restart): on PostgreSQL a holder owns the
 * schema and each instance shares it; on PGlite both open the same data directory in turn.
 */
export async function restartableStore(opts: TestServiceOptions = {}) {
  if (realServers.database) {
    const holder = await startTestService(opts);
    return {
      holder,
      start: () => startTestService({ ...opts, shareWith: holder }),
      close: () => holder.stop(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'devtools-restart-'));
  const clock = opts.clock;
  return {
    holder: undefined,
    start: () => startTestService({ ...opts, clock, env: { ...opts.env, DATA_DIR: dir } }),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
