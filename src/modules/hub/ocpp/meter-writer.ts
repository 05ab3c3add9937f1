// Meter values from chargers, judged and written (decision 0275, meter-rules.ts): the register
// samples against their transaction, the accepted readings as telemetry of the charger's asset.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { TelemetryWriter } from '../../telemetry/index.ts';
import {
  countAnomaly,
  judgeRegister,
  powerInRange,
  registerInRange,
  timeProblem,
  type AnomalyCounts,
  type MeterAnomaly,
  type TxMeter,
} from '../meter-rules.ts';
import { hubStore as store } from '../store.ts';
import type { ChargerSession } from './context.ts';
import type { Sampled } from './meter-values.ts';

type CanonicalRow = Parameters<TelemetryWriter['writeInTx']>[3][number];
type Session = ChargerSession;
const key = (orgId: string, cpId: string) => `${orgId}/${cpId}`;

export interface MeterWriter {
  /**
   * Queues a message's meter values for the next flush; resolves once they are judged and committed.
   * `stopAt`: the stop instant when this message stops its transaction (samples after it are outside it).
   */
  meter(s: Session, connectorId: number, txId: string | null, values: Sampled[], stopAt?: Date | null): Promise<void>;
}

/**
 * Meter values are written by group commit: a message waits for the next flush, and one flush
 * writes every message queued since the last one in one transaction (register samples, then the
 * telemetry rows of each organisation in one batch), so a thousand chargers cost a few store
 * transactions a second rather than one each. The CALLRESULT goes out after the commit. A flush
 * that fails is retried message by message, so one bad message fails alone.
 */
export function createMeterWriter(deps: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  writer: TelemetryWriter;
  /** Keeps a promise until it settles (the gateway waits for these when it stops). */
  track: <T>(p: Promise<T>) => Promise<T>;
}): MeterWriter {
  const { db, clock, log, writer, track } = deps;
  interface MeterWrite {
    s: Session;
    connectorId: number;
    txId: string | null;
    /** The stop instant when this message stops its transaction (samples after it are outside it). */
    stopAt: Date | null;
    values: Sampled[];
    done: (err?: unknown) => void;
  }
  const meterQueue: MeterWrite[] = [];
  let flushing: Promise<void> | null = null;

  /**
   * Judges and writes a batch in one transaction: the transactions' states are read (locked), each
   * sample judged in time order per message (meter-rules.ts), the accepted and flagged register
   * samples stored, each transaction's latest accepted reading and anomaly counts written once, and
   * the accepted readings written as telemetry of the charger asset, each organisation's in one batch.
   */
  async function writeMeters(batch: MeterWrite[]) {
    const now = clock.now();
    const nowMs = now.getTime();
    const byOrg = new Map<string, CanonicalRow[]>();
    await db.tx(async (q) => {
      const txKeys = new Map<string, { orgId: string; txId: string }>();
      const cpKeys = new Map<string, { orgId: string; cpId: string }>();
      for (const m of batch) {
        if (m.txId) txKeys.set(`${m.s.orgId}/${m.txId}`, { orgId: m.s.orgId, txId: m.txId });
        else cpKeys.set(key(m.s.orgId, m.s.cpId), { orgId: m.s.orgId, cpId: m.s.cpId });
      }
      const states = new Map<string, { meter: TxMeter; startWh: number; riseAt: Date | null; anomalies: AnomalyCounts; moved: boolean; counted: boolean }>();
      for (const r of await store.meterStates(q, [...txKeys.values()])) {
        const lastWh = Number(r.last_wh);
        states.set(`${r.org_id}/${r.transaction_id}`, {
          meter: {
            startMs: r.started_at.getTime(),
            stopMs: r.stopped_at?.getTime() ?? null,
            ratedKw: Number(r.max_power_kw ?? 0),
            known: r.meter_start_known,
            lastMs: (r.last_meter_at ?? r.started_at).getTime(),
            lastWh,
          },
          startWh: Number(r.start_wh), // a first accepted sample sets it when not known
          riseAt: null,
          anomalies: structuredClone(r.meter_anomalies ?? {}),
          moved: false,
          counted: false,
        });
      }
      const rated = await store.ratedPower(q, [...cpKeys.values()]);
      const samples = new Map<string, { orgId: string; txId: string; ts: Date; wh: number; flag: string | null }>();
      for (const m of batch) {
        const st = m.txId ? states.get(`${m.s.orgId}/${m.txId}`) : undefined;
        const ratedKw = st ? st.meter.ratedKw : (rated.get(key(m.s.orgId, m.s.cpId)) ?? 0);
        const note = (reason: MeterAnomaly) => {
          if (!st) return;
          countAnomaly(st.anomalies, reason, now);
          st.counted = true;
        };
        if (st && m.stopAt) st.meter.stopMs = Math.min(st.meter.stopMs ?? Infinity, m.stopAt.getTime());
        const records = [];
        const ordered = [...m.values].sort((x, y) => (x.ts.getTime() || 0) - (y.ts.getTime() || 0));
        for (const v of ordered) {
          if (v.wh === null && v.powerKw === null) continue;
          const tsMs = v.ts.getTime();
          const bad = timeProblem(tsMs, nowMs);
          if (bad) {
            note(bad);
            continue;
          }
          if (st && (tsMs < st.meter.startMs || (st.meter.stopMs !== null && tsMs > st.meter.stopMs))) {
            note('outside_transaction');
            continue;
          }
          let energyOk = false;
          if (v.wh !== null) {
            if (!st) {
              energyOk = registerInRange(v.wh);
              if (!energyOk) note('register_out_of_range');
            } else {
              const before = st.meter.lastWh;
              const wasKnown = st.meter.known;
              const verdict = judgeRegister(st.meter, tsMs, v.wh);
              const k = `${m.s.orgId}/${m.txId}/${tsMs}`;
              if (verdict.kind === 'accept') {
                energyOk = true;
                st.moved = true;
                if (!wasKnown) st.startWh = v.wh;
                else if (v.wh > before) st.riseAt = v.ts;
                samples.set(k, { orgId: m.s.orgId, txId: m.txId!, ts: v.ts, wh: v.wh, flag: null });
              } else if (verdict.kind === 'duplicate') {
                energyOk = true;
              } else {
                note(verdict.reason);
                if (verdict.kind === 'flag' && !samples.has(k)) samples.set(k, { orgId: m.s.orgId, txId: m.txId!, ts: v.ts, wh: v.wh, flag: verdict.reason });
              }
            }
          }
          let powerOk = false;
          if (v.powerKw !== null) {
            powerOk = powerInRange(v.powerKw, ratedKw);
            if (!powerOk) note('power_out_of_range');
          }
          if (!energyOk && !powerOk) continue;
          records.push({
            asset_id: m.s.assetId,
            ts: v.ts.toISOString(),
            ...(powerOk && { power_kw: v.powerKw }),
            ...(energyOk && { energy_kwh: v.wh! / 1000 }),
            charge_point_id: m.s.cpId,
            connector_id: m.connectorId,
            ...(m.txId && { transaction_id: m.txId }),
            origin: 'ocpp',
          });
        }
        if (records.length) {
          const rows = writer.judge(m.s.orgId, records).flatMap((j) => (j.ok ? [j.row] : []));
          const list = byOrg.get(m.s.orgId);
          if (list) for (const row of rows) list.push(row);
          else byOrg.set(m.s.orgId, rows);
        }
      }
      await store.insertSamples(q, [...samples.values()]);
      const moved = [];
      for (const [k, st] of states) {
        if (!st.moved && !st.counted) continue;
        const [orgId, txId] = [k.slice(0, k.indexOf('/')), k.slice(k.indexOf('/') + 1)];
        moved.push({
          orgId,
          txId,
          startWh: st.startWh,
          lastWh: st.meter.lastWh,
          lastAt: new Date(st.meter.lastMs),
          riseAt: st.riseAt,
          anomalies: st.anomalies,
          known: st.meter.known,
        });
      }
      await store.meterMoved(q, moved);
      for (const [orgId, rows] of byOrg) await writer.writeInTx(q, orgId, now, rows);
    });
    // The live stream is published after the commit without holding the next flush (or the
    // chargers' answers) behind the bus's acknowledgement.
    for (const [orgId, rows] of byOrg) track(writer.committed(orgId, now, rows).catch((err) => log.warn({ err }, 'hub: telemetry stream publish failed')));
  }

  function flush() {
    if (flushing) return;
    flushing = (async () => {
      while (meterQueue.length) {
        const batch = meterQueue.splice(0, 500);
        try {
          await writeMeters(batch);
          for (const m of batch) m.done();
        } catch {
          for (const m of batch) {
            try {
              await writeMeters([m]);
              m.done();
            } catch (err) {
              m.done(err);
            }
          }
        }
      }
      flushing = null;
    })();
    track(flushing);
  }

  return {
    meter(s, connectorId, txId, values, stopAt = null) {
      return new Promise<void>((resolve, reject) => {
        meterQueue.push({ s, connectorId, txId, stopAt, values, done: (err) => (err ? reject(err) : resolve()) });
        flush();
      });
    },
  };
}
