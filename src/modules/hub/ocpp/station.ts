// What a charger says about itself, whatever its version: boot, heartbeat, connector status. Each
// is stored against the charge point (connector status history feeds reliability, pcpr.ts).
import { groupCommit } from '../../../platform/group-commit.ts';
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import { timeProblem } from '../meter-rules.ts';
import { hubStore as store } from '../store.ts';
import type { ChargerSession } from './context.ts';

export interface StationEvents {
  boot(s: ChargerSession, b: { vendor: string; model: string; firmware: string | null; serial: string | null }): Promise<{ currentTime: string }>;
  heartbeat(s: ChargerSession): Promise<{ currentTime: string }>;
  status(s: ChargerSession, connectorId: number, status: string, ocpi: string | undefined, errorCode: string | null, ts: unknown): Promise<void>;
  /**
   * A 2.0.1 connector's status: the EVSE's status (what the hub counts as its connector) is
   * `aggregate` of the newest status of each of the EVSE's connectors (decision 0436).
   */
  evseStatus(
    s: ChargerSession,
    evseId: number,
    connectorId: number,
    status: string,
    ts: unknown,
    aggregate: (statuses: string[]) => { status: string; ocpi: string },
  ): Promise<void>;
}

/**
 * A timestamp from a charger: used when it parses, is not before the service calendar (2000-01-01:
 * a charger whose clock was never set says 1970) and is not ahead of the service's clock by more
 * than 5 minutes; the service's clock otherwise.
 */
export function chargerTimeOn(clock: Clock) {
  return (s: unknown): Date => {
    const now = clock.now();
    if (typeof s !== 'string') return now;
    const t = new Date(s);
    return timeProblem(t.getTime(), now.getTime()) ? now : t;
  };
}

export function createStationEvents(deps: { db: Db; clock: Clock }): StationEvents {
  const { db, clock } = deps;
  const chargerTime = chargerTimeOn(clock);
  // Heartbeats by group commit: a thousand chargers' minute heartbeats were one transaction and
  // commit each (14 % of PostgreSQL's time in bench:hub); each answer still follows its commit.
  const beat = groupCommit<{ orgId: string; cpId: string; at: Date }>((beats) => store.heartbeats(db, beats));
  return {
    async boot(s, b) {
      const now = clock.now();
      await store.booted(db, s.orgId, s.cpId, b, now);
      return { currentTime: now.toISOString() };
    },
    async heartbeat(s) {
      const now = clock.now();
      await beat({ orgId: s.orgId, cpId: s.cpId, at: now });
      return { currentTime: now.toISOString() };
    },
    async status(s, connectorId, st, ocpi, errorCode, ts) {
      const now = clock.now();
      await store.insertStatus(
        db,
        s.orgId,
        { charge_point_id: s.cpId, connector_id: connectorId, status: st, ocpi_status: ocpi ?? 'UNKNOWN', error_code: errorCode, ts: chargerTime(ts) },
        now,
      );
    },
    async evseStatus(s, evseId, connectorId, st, ts, aggregate) {
      const now = clock.now();
      const at = chargerTime(ts);
      await db.tx(async (q) => {
        const all = await store.evseConnectorStatus(q, s.orgId, s.cpId, evseId, connectorId, st, at);
        const evse = aggregate(all);
        await store.insertStatus(
          q,
          s.orgId,
          { charge_point_id: s.cpId, connector_id: evseId, status: evse.status, ocpi_status: evse.ocpi, error_code: null, ts: at },
          now,
        );
      });
    },
  };
}
