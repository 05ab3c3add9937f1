// device.offline: a scheduled job walks the organisations with a live endpoint taking the event
// and reports each device whose newest record (telemetry_latest) is older than the threshold, once
// per silence (a device that reports again can go offline again). Devices silent for more than a
// week before they were first seen silent are not reported (no flood on first run).
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import { DAY_MS } from '../common.ts';
import { endpointStore } from '../webhooks/store.ts';
import { deliveryStore } from './store.ts';
import type { DeliveryEngine } from './engine.ts';

export const OFFLINE_AFTER_MS = 30 * 60_000;
export const WATCHDOG_EVERY_MS = 5 * 60_000;
const LOOKBACK_MS = 7 * DAY_MS;

export function createOfflineWatchdog(deps: { db: Db; clock: Clock; engine: DeliveryEngine }) {
  const { db, clock, engine } = deps;
  return async function scan(): Promise<number> {
    const now = clock.now();
    let reported = 0;
    for (const orgId of await endpointStore.orgsListening(db, 'device.offline')) {
      await deliveryStore.clearRecovered(db, orgId);
      const silent = await deliveryStore.newlySilent(db, orgId, new Date(now.getTime() - OFFLINE_AFTER_MS), new Date(now.getTime() - LOOKBACK_MS), 500);
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
    }
    return reported;
  };
}
