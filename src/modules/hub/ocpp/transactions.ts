// Charging transactions as chargers report them: the link between a charger's transaction id and
// the hub's (1.6: the hub numbers them; 2.0.1: the charger does), the start with the price schedule
// in force, and the stop.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import { CLOCK_TOLERANCE_MS, countAnomaly, registerInRange, type AnomalyCounts } from '../meter-rules.ts';
import { hubStore as store } from '../store.ts';
import type { ChargerSession } from './context.ts';
import type { OcppVersion } from './edge.ts';

type Session = ChargerSession;
const key = (orgId: string, cpId: string) => `${orgId}/${cpId}`;

export interface TxLink {
  transaction_id: string;
  connector_id: number;
}

export interface TransactionStart {
  connectorId: number;
  ocppId: string;
  version: OcppVersion;
  idTag: string | null;
  /** What authorised it (authorisation.ts): which applied and the status answered in the version's terms. */
  authorisation: { applied: 'id_token' | 'free_vend' | 'none'; status: string | null };
  at: Date;
  meterStartWh: number | null;
}

export interface TransactionLinks {
  /** The hub's transaction for a charger's transaction id (cached while it runs: MeterValues name it on every message). */
  txOf(s: Session, ocppId: string): Promise<TxLink | null>;
  /** The hub's transaction for a charger's id, read from the store (no cache). */
  stored(s: Session, ocppId: string): Promise<TxLink | null>;
  /** The next transaction id the hub gives a 1.6 charger. */
  nextOcppId(): Promise<number>;
  /** Starts a transaction (idempotent on the charger's id); returns the hub's id. */
  start(q: Queryable, s: Session, t: TransactionStart): Promise<string>;
  /** Stops a transaction at `at` (charger time) for `reason`, and forgets its link. */
  stop(s: Session, ocppId: string, tx: TxLink, at: Date, reason: string): Promise<void>;
}

export function createTransactionLinks(deps: { db: Db; clock: Clock }): TransactionLinks {
  const { db, clock } = deps;
  /** Transaction ids of the link (ocpp id -> the hub's), per charger. */
  const txIds = new Map<string, TxLink>();

  return {
    async txOf(s, ocppId) {
      const k = `${key(s.orgId, s.cpId)}/${ocppId}`;
      const hit = txIds.get(k);
      if (hit) return hit;
      const row = await store.transactionByOcpp(db, s.orgId, s.cpId, ocppId);
      if (!row) return null;
      const v = { transaction_id: row.transaction_id, connector_id: row.connector_id };
      if (!row.stopped_at) {
        if (txIds.size > 100_000) txIds.clear();
        txIds.set(k, v);
      }
      return v;
    },

    async stored(s, ocppId) {
      const row = await store.transactionByOcpp(db, s.orgId, s.cpId, ocppId);
      return row ? { transaction_id: row.transaction_id, connector_id: row.connector_id } : null;
    },

    nextOcppId: () => store.nextOcppTransactionId(db),

    async start(q, s, t) {
      const now = clock.now();
      const schedule = await store.inForce(q, s.orgId, s.siteId, t.at);
      const transactionId = randomUUID();
      // An absurd start register is not the session's start: the first accepted sample is (meter-rules.ts).
      const anomalies: AnomalyCounts = {};
      let startWh = t.meterStartWh;
      if (startWh !== null && !registerInRange(startWh)) {
        countAnomaly(anomalies, 'register_out_of_range', now);
        startWh = null;
      }
      const fresh = await store.insertTransaction(
        q,
        s.orgId,
        {
          transaction_id: transactionId,
          site_id: s.siteId,
          charge_point_id: s.cpId,
          connector_id: t.connectorId,
          ocpp_transaction_id: t.ocppId,
          ocpp_version: t.version,
          id_tag: t.idTag,
          started_at: t.at,
          meter_start_wh: String(startWh ?? 0),
          last_meter_wh: String(startWh ?? 0),
          schedule_version: schedule?.version ?? null,
          meter_start_known: startWh !== null,
          meter_anomalies: anomalies,
          authorisation: t.authorisation.applied,
          id_token_status: t.authorisation.status,
        },
        now,
      );
      if (!fresh) return (await store.transactionByOcpp(q, s.orgId, s.cpId, t.ocppId))!.transaction_id;
      if (startWh !== null) await store.sample(q, s.orgId, transactionId, t.at, startWh);
      return transactionId;
    },

    async stop(s, ocppId, tx, at, reason) {
      await store.stop(db, s.orgId, tx.transaction_id, at, reason, new Date(clock.now().getTime() + CLOCK_TOLERANCE_MS));
      txIds.delete(`${key(s.orgId, s.cpId)}/${ocppId}`);
    },
  };
}
