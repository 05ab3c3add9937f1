// Public status: a scheduled job (one instance per run, every minute) checks each public API
// component and records the result; GET /api/devtools/status computes the state now and observed
// availability over 24 h, 7 d and 30 d from those records only. No recent check: `unobserved`; a
// window without checks: no percentage.
import type { Db } from '../../../infra/db/index.ts';
import type { Cache } from '../../../infra/cache/index.ts';
import type { Bus } from '../../../infra/bus/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import { healthStore } from './store.ts';

export const CHECK_EVERY_MS = 60_000;
/** A component whose newest check is older than this is `unobserved`. */
export const RECENT_MS = 5 * 60_000;

export const COMPONENTS = [
  { name: 'partner_api', description: 'Partner API (/api/devtools/partner/v1): API key lookup and the data store behind it' },
  { name: 'webhook_delivery', description: 'Webhook delivery queue: due deliveries are being attempted' },
  { name: 'database', description: 'Primary data store' },
  { name: 'cache', description: 'Shared counter store (rate limits across servers; key-authenticated writes need it)' },
  { name: 'bus', description: 'Event bus (live telemetry stream)' },
] as const;

export interface StatusDeps {
  db: Db;
  cache: Cache;
  bus: Bus;
  clock: Clock;
  /** True when the partner API's key lookup answers. */
  partnerProbe: () => Promise<boolean>;
  /** Milliseconds the oldest due delivery has been waiting (0 when none). */
  deliveryLag: () => Promise<number>;
}

const MAX_LAG_MS = 5 * 60_000;

async function timed(fn: () => Promise<boolean>): Promise<{ ok: boolean; latencyMs: number; detail: string | null }> {
  const t0 = performance.now();
  try {
    const ok = await fn();
    return { ok, latencyMs: Math.round(performance.now() - t0), detail: ok ? null : 'check failed' };
  } catch (e) {
    return { ok: false, latencyMs: Math.round(performance.now() - t0), detail: (e as Error).message.slice(0, 200) };
  }
}

const pct = (ok: number, n: number) => (n === 0 ? null : Math.round((ok / n) * 100_000) / 1000);

/** The status now and observed availability, from the recorded health checks only (reads, no checks run). */
export async function readStatus(db: Db, clock: Clock) {
  const now = clock.now();
  const counts = new Map((await healthStore.windows(db, now)).map((w) => [w.component, w]));
  const components = COMPONENTS.map((c) => {
    const w = counts.get(c.name);
    const recent = w?.last_checked && now.getTime() - new Date(w.last_checked).getTime() <= RECENT_MS;
    const state = !recent ? 'unobserved' : w!.last_ok ? 'operational' : 'degraded';
    const win = (n: number, ok: number) => ({ percent: pct(ok, n), checks: n, failed: n - ok });
    return {
      name: c.name,
      description: c.description,
      state,
      last_checked_at: w?.last_checked ? new Date(w.last_checked).toISOString() : null,
      availability: {
        last_24h: win(w?.n24 ?? 0, w?.ok24 ?? 0),
        last_7d: win(w?.n7 ?? 0, w?.ok7 ?? 0),
        last_30d: win(w?.n30 ?? 0, w?.ok30 ?? 0),
      },
    };
  });
  const states = components.map((c) => c.state);
  const overall = states.includes('degraded') ? 'degraded' : states.every((s) => s === 'operational') ? 'operational' : 'unobserved';
  return { status: overall, generated_at: now.toISOString(), check_interval_seconds: CHECK_EVERY_MS / 1000, components };
}

export function createStatusService(deps: StatusDeps) {
  const { db, cache, bus, clock } = deps;
  return {
    async runChecks() {
      const checks = {
        partner_api: () => deps.partnerProbe(),
        webhook_delivery: async () => (await deps.deliveryLag()) < MAX_LAG_MS,
        database: () => db.ping(1000),
        cache: () => cache.ping(1000),
        bus: () => bus.ping(1000),
      };
      const results = await Promise.all(COMPONENTS.map(async (c) => ({ component: c.name, ...(await timed(checks[c.name])) })));
      await healthStore.record(db, results, clock.now());
    },

    status: () => readStatus(db, clock),
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
