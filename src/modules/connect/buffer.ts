// Buffer replay: a gateway that was offline uploads its buffered readings, each with a per-device
// sequence number. Each record is judged by the telemetry ingestion rules and written as production
// telemetry through the telemetry module (TELEMETRY_WRITER) in the same transaction that claims its
// (site, device, sequence) triple; the primary key makes a retried or concurrent replay store
// nothing twice. Claims are the site's (its gateway numbers its own devices), and a claim keeps the
// hash of the record it stored: the same sequence with other content is a conflict, refused by
// name, never a silent duplicate; a replay id reused at the site with other records is 409 with
// nothing stored (decision 0302). Gaps in each device's sequences are reported.
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { AppError, errors } from '../../platform/errors.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { canonicalJson } from '../../kit/canonical-json.ts';
import { jobProgress } from '../../kit/progress.ts';
import type { TelemetryWriter } from '../telemetry/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { connectErrors } from './errors.ts';
import { bufferStore, gatewayStore } from './store.ts';

export const MAX_REPLAY_RECORDS = 5000;

export type ReplayResult =
  | { index: number; status: 'stored'; device_id: string; sequence: number; anomalies?: string[] }
  | { index: number; status: 'duplicate'; device_id: string; sequence: number; duplicate_of: number | null }
  | { index: number; status: 'rejected'; device_id: string | null; sequence: number | null; field: string | null; reason: string; message: string };

export interface ReplayBody {
  replay_id?: string;
  remaining?: number;
  records: object[];
}

const hashOf = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('base64url');

const sequenceConflict = (index: number, deviceId: string, sequence: number, message: string): ReplayResult => ({
  index,
  status: 'rejected',
  device_id: deviceId,
  sequence,
  field: 'sequence',
  reason: 'sequence_conflict',
  message,
});

const deviceOf = (r: Record<string, unknown>): string | null =>
  typeof r.asset_id === 'string' ? r.asset_id : typeof r.device_id === 'string' ? r.device_id : null;

export function createBufferReplay(deps: { db: Db; clock: Clock; writer: TelemetryWriter; registry: RegistrySites; cursors: CursorCodec }) {
  const { db, clock, writer, registry, cursors } = deps;

  async function requireSite(orgId: string, siteId: string) {
    if (!(await registry.siteExists(db, orgId, siteId)) && !(await bufferStore.state(db, orgId, siteId))) throw errors.notFound();
  }

  async function replay(ctx: RequestContext, siteId: string, body: ReplayBody) {
    await requireSite(ctx.orgId, siteId);
    const orgId = ctx.orgId;
    const replayId = body.replay_id ?? randomUUID();
    const judged = writer.judge(orgId, body.records);
    // A device registered to another site is not this gateway's: its readings are refused, so a
    // misconfigured gateway cannot write into another site's assets. Unregistered devices are
    // welcome (a site being onboarded reports before its mapping is confirmed).
    const ids = [...new Set(judged.flatMap((j) => (j.ok ? [j.asset_id] : [])))];
    const elsewhere = new Map(
      (ids.length ? await registry.assets(db, orgId, { assetIds: ids }) : []).filter((a) => a.site_id !== siteId).map((a) => [a.asset_id, a.site_id]),
    );
    // A device credential limited to some devices replays only theirs (decision 0375).
    const notTheirs = ctx.actor.kind === 'device' && ids.length ? await ctx.actor.refusals(ids) : undefined;
    const results: ReplayResult[] = new Array(body.records.length);
    const accepted: { index: number; device_id: string; sequence: number; hash: string; judged: Extract<(typeof judged)[number], { ok: true }> }[] = [];
    const inBatch = new Map<string, { index: number; hash: string }>();
    for (const j of judged) {
      const rec = body.records[j.index] as Record<string, unknown>;
      const seq = rec.sequence;
      const sequence = typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : null;
      if (!j.ok) {
        results[j.index] = { index: j.index, status: 'rejected', device_id: deviceOf(rec), sequence, field: j.field, reason: j.reason, message: j.message };
        continue;
      }
      const site = elsewhere.get(j.asset_id);
      if (site !== undefined) {
        results[j.index] = {
          index: j.index,
          status: 'rejected',
          device_id: j.asset_id,
          sequence,
          field: 'device_id',
          reason: 'device_on_another_site',
          message: `${j.asset_id} is registered to site ${site}, not ${siteId}`,
        };
        continue;
      }
      const refusal = notTheirs?.get(j.asset_id);
      if (refusal) {
        results[j.index] = { index: j.index, status: 'rejected', device_id: j.asset_id, sequence, field: 'device_id', ...refusal };
        continue;
      }
      if (sequence === null) {
        results[j.index] = {
          index: j.index,
          status: 'rejected',
          device_id: j.asset_id,
          sequence: null,
          field: 'sequence',
          reason: seq === undefined ? 'missing_sequence' : 'invalid_sequence',
          message: 'sequence must be a whole number from 0, counted per device by the gateway',
        };
        continue;
      }
      const key = `${j.asset_id}\u0000${sequence}`;
      const hash = hashOf(rec);
      const first = inBatch.get(key);
      if (first !== undefined) {
        results[j.index] =
          first.hash === hash
            ? { index: j.index, status: 'duplicate', device_id: j.asset_id, sequence, duplicate_of: first.index }
            : sequenceConflict(
                j.index,
                j.asset_id,
                sequence,
                `sequence ${sequence} of ${j.asset_id} is given twice in this upload with different records (index ${first.index})`,
              );
        continue;
      }
      inBatch.set(key, { index: j.index, hash });
      accepted.push({ index: j.index, device_id: j.asset_id, sequence, hash, judged: j });
    }
    const allRejected = (rejected: number) =>
      new AppError(422, 'all_records_rejected', {
        code: 'all_records_rejected',
        members: { site_id: siteId, replay_id: replayId, count: body.records.length, stored: 0, duplicates: 0, rejected, anomalies: [], results, gaps: [] },
      });
    const refused = results.filter((r) => r?.status === 'rejected').length;
    if (!accepted.length && refused === body.records.length) throw allRejected(refused);
    const now = clock.now();
    const { fresh: stored, rejected } = await db.tx(async (q) => {
      let rejected = refused;
      // The replay id is the upload's identity at the site: the same id with other records is a
      // conflict, and the transaction (claims included) is rolled back.
      const firstHash = await bufferStore.claimReplayId(q, orgId, siteId, replayId, hashOf(body.records), now);
      if (firstHash !== null && firstHash !== hashOf(body.records)) throw connectErrors.replayIdReused(replayId);
      const claimed = await bufferStore.claim(
        q,
        orgId,
        siteId,
        replayId,
        accepted.map((a) => ({ device_id: a.device_id, sequence: a.sequence, ts: a.judged.ts, anomalies: a.judged.anomalies, record_hash: a.hash })),
        now,
      );
      const fresh = accepted.filter((a) => claimed.has(`${a.device_id}\u0000${a.sequence}`));
      // A pair stored before is a duplicate only when it holds the same record.
      const earlier = await bufferStore.storedClaims(
        q,
        orgId,
        siteId,
        accepted.filter((a) => !claimed.has(`${a.device_id}\u0000${a.sequence}`)),
      );
      for (const a of accepted) {
        const prior = earlier.get(`${a.device_id}\u0000${a.sequence}`);
        if (prior && prior.record_hash !== null && prior.record_hash !== a.hash) {
          results[a.index] = sequenceConflict(
            a.index,
            a.device_id,
            a.sequence,
            `sequence ${a.sequence} of ${a.device_id} was stored at this site with a different record (replay ${prior.replay_id})`,
          );
          rejected++;
        }
      }
      if (!fresh.length && rejected === body.records.length) throw allRejected(rejected);
      await writer.writeInTx(
        q,
        orgId,
        now,
        fresh.map((a) => a.judged.row),
      );
      const duplicates = body.records.length - fresh.length - rejected;
      await bufferStore.addState(
        q,
        orgId,
        siteId,
        { received: body.records.length, stored: fresh.length, duplicates, rejected, remaining: body.remaining },
        now,
      );
      return { fresh, rejected };
    });
    await writer.committed(
      orgId,
      now,
      stored.map((a) => a.judged.row),
    );
    const storedSet = new Set(stored.map((a) => a.index));
    const anomalies = [];
    for (const a of accepted) {
      if (results[a.index]?.status === 'rejected') continue;
      if (storedSet.has(a.index)) {
        results[a.index] = a.judged.anomalies.length
          ? { index: a.index, status: 'stored', device_id: a.device_id, sequence: a.sequence, anomalies: a.judged.anomalies }
          : { index: a.index, status: 'stored', device_id: a.device_id, sequence: a.sequence };
        if (a.judged.anomalies.length) anomalies.push({ index: a.index, asset_id: a.device_id, reasons: a.judged.anomalies, record: body.records[a.index] });
      } else {
        results[a.index] = { index: a.index, status: 'duplicate', device_id: a.device_id, sequence: a.sequence, duplicate_of: null };
      }
    }
    const devices = [...new Set(accepted.map((a) => a.device_id))];
    const gaps = devices.length ? await bufferStore.gaps(db, orgId, siteId, devices) : [];
    return {
      httpStatus: rejected ? 207 : 200,
      site_id: siteId,
      replay_id: replayId,
      count: body.records.length,
      stored: stored.length,
      duplicates: body.records.length - stored.length - rejected,
      rejected,
      anomalies,
      results,
      gaps,
      remaining: body.remaining ?? null,
    };
  }

  return {
    replay,

    async status(ctx: RequestContext, siteId: string) {
      await requireSite(ctx.orgId, siteId);
      const s = await bufferStore.state(db, ctx.orgId, siteId);
      const gw = await gatewayStore.get(db, ctx.orgId, siteId);
      // The newer of the replay's own `remaining` and the heartbeat's buffer_depth.
      let remaining = s?.remaining ?? null;
      let remainingFrom: 'replay' | 'heartbeat' | null = remaining === null ? null : 'replay';
      let remainingAt = s?.remaining_reported_at ?? null;
      if (gw?.buffer_depth !== null && gw?.buffer_depth !== undefined && gw.last_heartbeat_at && (!remainingAt || gw.last_heartbeat_at > remainingAt)) {
        remaining = gw.buffer_depth;
        remainingFrom = 'heartbeat';
        remainingAt = gw.last_heartbeat_at;
      }
      const stored = Number(s?.stored ?? 0);
      const devices = await bufferStore.devices(db, ctx.orgId, siteId);
      const gaps = await bufferStore.gaps(db, ctx.orgId, siteId, undefined, 101);
      const missingBy = new Map<string, number>();
      for (const g of gaps) missingBy.set(g.device_id, (missingBy.get(g.device_id) ?? 0) + g.missing);
      return {
        site_id: siteId,
        replays: Number(s?.replays ?? 0),
        received: Number(s?.received ?? 0),
        stored,
        duplicates: Number(s?.duplicates ?? 0),
        rejected: Number(s?.rejected ?? 0),
        remaining,
        remaining_source: remainingFrom,
        remaining_reported_at: isoTimeOrNull(remainingAt),
        progress: jobProgress(stored, remaining === null ? null : stored + remaining, 'readings'),
        progress_pct: remaining === null ? null : stored + remaining === 0 ? 100 : Math.round((stored / (stored + remaining)) * 1000) / 10,
        first_replay_at: isoTimeOrNull(s?.first_replay_at),
        last_replay_at: isoTimeOrNull(s?.last_replay_at),
        devices: devices.map((d) => ({
          device_id: d.device_id,
          rows: Number(d.n),
          first_sequence: Number(d.first_seq),
          last_sequence: Number(d.last_seq),
          first_ts: isoTime(d.first_ts),
          last_ts: isoTime(d.last_ts),
          missing: Number(d.last_seq) - Number(d.first_seq) + 1 - Number(d.n),
        })),
        gaps: gaps.slice(0, 100),
        gaps_truncated: gaps.length > 100,
      };
    },

    async rows(ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string; device_id?: string }) {
      await requireSite(ctx.orgId, siteId);
      const limit = query.limit ?? 100;
      const binding = { op: 'listBufferRows', orgId: ctx.orgId, filters: { site_id: siteId, device_id: query.device_id ?? null } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await bufferStore.page(db, ctx.orgId, siteId, {
        after: paged.after && { device: paged.after.t, seq: paged.after.id },
        deviceId: query.device_id,
        limit,
      });
      const page = paged.page(rows, (r) => ({ t: r.device_id, id: r.sequence }));
      return {
        rows: page.items.map((r) => ({
          device_id: r.device_id,
          sequence: Number(r.sequence),
          ts: r.ts,
          anomalies: r.anomalies,
          replay_id: r.replay_id,
          received_at: isoTime(r.received_at),
        })),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    /**
     * Demo rehearsal: synthetic buffered readings for the site's devices, replayed as an interrupted
     * first attempt (the first half) and a full retry; the retry stores only what the first did not.
     */
    async rehearse(ctx: RequestContext, siteId: string, body: { readings_per_device?: number; interval_s?: number }) {
      await requireSite(ctx.orgId, siteId);
      const n = body.readings_per_device ?? 12;
      const interval = body.interval_s ?? 300;
      const assets = await registry.siteAssets(db, ctx.orgId, siteId);
      const deviceIds = assets.length
        ? assets.slice(0, 10).map((a) => a.asset_id)
        : [`${siteId.replace(/[^A-Za-z0-9._:@+-]/g, '-')}.demo-meter`.replace(/^[^A-Za-z0-9]+/, 'demo')];
      const now = clock.now().getTime();
      const records: Record<string, unknown>[] = [];
      for (const [di, device] of deviceIds.entries()) {
        const start = ((await bufferStore.maxSequence(db, ctx.orgId, siteId, device)) ?? -1) + 1;
        for (let k = 0; k < n; k++) {
          records.push({
            device_id: device,
            sequence: start + k,
            ts: new Date(now - (n - k) * interval * 1000).toISOString(),
            // A smooth synthetic load: 0.4 to 1.6 kW, a different phase per device.
            power_kw: Math.round((1 + 0.6 * Math.sin((k + di * 3) / 2)) * 1000) / 1000,
            site_ref: siteId,
            simulated: true,
            rehearsal: true,
          });
        }
      }
      const half = records.filter((_, i) => i % n < Math.ceil(n / 2));
      const first = await replay(ctx, siteId, { records: half, replay_id: `rehearsal-${randomUUID()}`, remaining: records.length - half.length });
      const retry = await replay(ctx, siteId, { records, replay_id: `rehearsal-${randomUUID()}`, remaining: 0 });
      const summary = (r: Awaited<ReturnType<typeof replay>>) => ({
        replay_id: r.replay_id,
        count: r.count,
        stored: r.stored,
        duplicates: r.duplicates,
        rejected: r.rejected,
      });
      return {
        site_id: siteId,
        devices: deviceIds,
        generated: records.length,
        interrupted_attempt: summary(first),
        retry: summary(retry),
        stored_total: first.stored + retry.stored,
        each_stored_once: first.stored + retry.stored === records.length,
        gaps: retry.gaps,
      };
    },
  };
}

export type BufferReplay = ReturnType<typeof createBufferReplay>;
