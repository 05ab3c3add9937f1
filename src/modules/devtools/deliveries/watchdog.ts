// device.offline: a scheduled job walks the organisations with a live endpoint taking the event
// and reports each device whose newest record (telemetry's, TELEMETRY_READS) is older than the
// threshold, once per silence (a device that reports again can go offline again). Devices silent
// for more than a week before they were first seen silent are not reported (no flood on first run).
// What was reported is this module's table (device_offline_state); site, type and name are the
// registry's (REGISTRY_READS), null for a device it does not know.
import type { Db, Queryable } from '../../../infra/db/index.ts';
import type { RegistryReads } from '../../registry/index.ts';
import type { TelemetryReads } from '../../telemetry/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { JobUnits } from '../../../platform/job-units.ts';
import { DAY_MS } from '../common.ts';
import { endpointStore } from '../webhooks/store.ts';
import { deliveryStore } from './store.ts';
import type { DeliveryEngine } from './engine.ts';

export const OFFLINE_AFTER_MS = 30 * 60_000;
export const WATCHDOG_EVERY_MS = 5 * 60_000;
/** The schedule; each organisation listening is its own unit (decision 0285). */
export const WATCHDOG_KIND = 'devtools.offline-watchdog';
const LOOKBACK_MS = 7 * DAY_MS;
/** Devices reported per organisation and scan (the rest wait for the next scan). */
const PER_SCAN = 500;

export interface WatchdogDeps {
  db: Db;
  clock: Clock;
  engine: DeliveryEngine;
  registry: Pick<RegistryReads, 'records'>;
  telemetry: Pick<TelemetryReads, 'latest' | 'newestBetween'>;
  units: Pick<JobUnits, 'each'>;
}

export function createOfflineWatchdog(deps: WatchdogDeps) {
  const { db, clock, engine, registry, telemetry } = deps;

  /** Forgets the devices reported offline whose newest record is now newer than the one reported. */
  async function clearRecovered(q: Queryable, orgId: string): Promise<void> {
    const reported = await deliveryStore.offlineSince(q, orgId);
    if (reported.length === 0) return;
    const latest = new Map((await telemetry.latest(q, orgId, { assetIds: reported.map((r) => r.asset_id) })).map((l) => [l.asset_id, l.ts]));
    const recovered = reported.filter((r) => {
      const ts = latest.get(r.asset_id);
      return ts !== undefined && new Date(ts).getTime() > new Date(r.last_ts).getTime();
    });
    await deliveryStore.forgetOffline(
      q,
      orgId,
      recovered.map((r) => r.asset_id),
    );
  }

  /**
   * Devices whose newest record is older than `silentBefore` (but not older than `notBefore`) and
   * not yet reported offline for that record, oldest first (ties by asset id), at most `limit`,
   * with the registry's site, type and name.
   */
  async function newlySilent(q: Queryable, orgId: string, silentBefore: Date, notBefore: Date, limit: number) {
    const found: { asset_id: string; ts: Date }[] = [];
    let after: { ts: Date; assetId: string } | undefined;
    while (found.length < limit) {
      const batch = await telemetry.newestBetween(q, orgId, { notBefore, before: silentBefore, after, limit });
      if (batch.length === 0) break;
      const reported = new Map(
        (
          await deliveryStore.offlineSince(
            q,
            orgId,
            batch.map((b) => b.asset_id),
          )
        ).map((s) => [s.asset_id, s.last_ts]),
      );
      for (const d of batch) {
        const last = reported.get(d.asset_id);
        if (last === undefined || new Date(last).getTime() < new Date(d.ts).getTime()) found.push(d);
      }
      if (batch.length < limit) break;
      after = { ts: batch[batch.length - 1].ts, assetId: batch[batch.length - 1].asset_id };
    }
    const silent = found.slice(0, limit);
    const assets = new Map((await registry.records(q, orgId, { assetIds: silent.map((d) => d.asset_id) })).map((a) => [a.asset_id, a]));
    return silent.map((d) => {
      const a = assets.get(d.asset_id);
      return { asset_id: d.asset_id, ts: d.ts, site_id: a?.site_id ?? null, type: a?.type ?? null, name: a?.name ?? null };
    });
  }

  return async function scan(): Promise<number> {
    const now = clock.now();
    let reported = 0;
    await deps.units.each(
      WATCHDOG_KIND,
      await endpointStore.orgsListening(db, 'device.offline'),
      (orgId) => ({ orgId }),
      async (orgId) => {
        await clearRecovered(db, orgId);
        const silent = await newlySilent(db, orgId, new Date(now.getTime() - OFFLINE_AFTER_MS), new Date(now.getTime() - LOOKBACK_MS), PER_SCAN);
        for (const d of silent) {
          await db.tx(async (q) => {
            if (!(await deliveryStore.markSilent(q, orgId, d.asset_id, d.ts, now))) return;
            const last = new Date(d.ts);
            await engine.queueEvent(q, {
              orgId,
              environment: 'live',
              type: 'device.offline',
              envelopeOrgId: orgId,
              data: {
                device: {
                  asset_id: d.asset_id,
                  site_id: d.site_id,
                  type: d.type,
                  name: d.name,
                  last_reported_at: last.toISOString(),
                  last_reported_source: 'telemetry',
                },
                silent_seconds: Math.floor((now.getTime() - last.getTime()) / 1000),
                threshold_seconds: OFFLINE_AFTER_MS / 1000,
              },
            });
            reported++;
          });
        }
      },
    );
    return reported;
  };
}
