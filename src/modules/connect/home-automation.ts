// Home-automation connector (phase 1, read only): the connector reports its entities, reads its
// site mapping, and posts readings that are normalised (units, power sign) and stored as telemetry
// through the telemetry module (TELEMETRY_WRITER). People confirm, edit or withdraw the mapping.
// Nothing here sends or queues a device command.
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors } from '../../platform/errors.ts';
import { isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import type { TelemetryWriter } from '../telemetry/index.ts';
import { connectErrors } from './errors.ts';
import { actorId } from './onboarding.ts';
import { haStore, type HaSiteRow } from './store.ts';
import { canonicalUnit, measurementOfUnit, normalise, type Measurement, type Sign } from './units.ts';
import { placeholderId } from './templates.ts';

export const HA_LATE_AFTER_S = 600;
export const HA_SILENT_AFTER_S = 3600;

export interface Entity {
  entity_id: string;
  device_class?: string | null;
  unit_of_measurement?: string | null;
  friendly_name?: string | null;
}

export interface MappingEntry {
  entity_id: string;
  asset_id: string;
  measurement: Measurement;
  unit: string;
  sign: Sign;
  reason?: string;
}

export interface Reading {
  entity_id: string;
  state: number | string;
  unit_of_measurement?: string;
  ts: string;
}

const CLASS_WORDS: [string, string[]][] = [
  ['inverter', ['solar', 'pv', 'inverter', 'generation', 'production']],
  ['battery', ['battery', 'batt', 'storage']],
  ['heat_pump', ['heat_pump', 'heatpump', 'ashp', 'gshp']],
  ['charger', ['charger', 'wallbox', 'evse', 'ev']],
  ['smart_meter', ['grid', 'meter', 'import', 'export', 'mains']],
];
const METERS = ['smart_meter', 'site_meter'];

/** Power sign the common dashboards use: solar production and battery discharge positive. */
export const defaultSign = (assetClass: string | null): Sign =>
  assetClass === 'inverter' || assetClass === 'battery' ? 'positive_is_export' : 'positive_is_import';

/** The connector's own asset id at a site: unmapped entities are kept in the raw of its records. */
export const connectorAssetId = (siteId: string) => placeholderId(siteId, 'home-automation');

export function proposeMapping(entities: readonly Entity[], assets: readonly { asset_id: string; asset_class: string | null }[]) {
  const mapping: MappingEntry[] = [];
  const ignored: { entity_id: string; reason: string }[] = [];
  for (const e of entities) {
    const unit = e.unit_of_measurement ?? '';
    const measurement = unit ? measurementOfUnit(unit, e.device_class) : null;
    if (!measurement) {
      ignored.push({
        entity_id: e.entity_id,
        reason: unit ? `unit '${unit}' (device class ${e.device_class ?? 'none'}) feeds no telemetry measurement` : 'no unit of measurement',
      });
      continue;
    }
    const text = `${e.entity_id} ${e.friendly_name ?? ''}`.toLowerCase();
    const words = new Set(text.split(/[^a-z0-9_]+/).flatMap((w) => [w, ...w.split('_')]));
    let cls: string | null = measurement === 'soc_pct' ? 'battery' : null;
    let why = measurement === 'soc_pct' ? 'a percentage of a battery device class is state of charge' : '';
    if (!cls) {
      for (const [c, ws] of CLASS_WORDS) {
        const hit = ws.find((w) => words.has(w));
        if (hit) {
          cls = c;
          why = `entity id or name contains '${hit}'`;
          break;
        }
      }
    }
    const asset = cls ? assets.find((a) => a.asset_class === cls || (cls === 'smart_meter' && METERS.includes(a.asset_class ?? ''))) : undefined;
    if (!asset) {
      ignored.push({
        entity_id: e.entity_id,
        reason: cls ? `no ${cls} asset is registered at the site` : 'nothing in the entity id or name ties it to an asset',
      });
      continue;
    }
    mapping.push({
      entity_id: e.entity_id,
      asset_id: asset.asset_id,
      measurement,
      unit: canonicalUnit(unit)!,
      sign: defaultSign(asset.asset_class),
      reason: why,
    });
  }
  return { mapping, ignored };
}

export function linkState(lastAt: Date | null, now: Date) {
  if (!lastAt) return { state: 'silent' as const, reason: 'No telemetry has been received from the connector.' };
  const age = Math.floor((now.getTime() - new Date(lastAt).getTime()) / 1000);
  if (age <= HA_LATE_AFTER_S) return { state: 'online' as const, reason: `Last telemetry ${age} s ago (late after ${HA_LATE_AFTER_S} s).` };
  if (age <= HA_SILENT_AFTER_S)
    return { state: 'late' as const, reason: `Last telemetry ${age} s ago: past ${HA_LATE_AFTER_S} s, within ${HA_SILENT_AFTER_S} s.` };
  return { state: 'silent' as const, reason: `Last telemetry ${age} s ago: past ${HA_SILENT_AFTER_S} s.` };
}

export function createHomeAutomation(deps: { db: Db; clock: Clock; audit: AuditLog; registry: RegistrySites; writer: TelemetryWriter }) {
  const { db, clock, audit, registry, writer } = deps;

  async function requireSite(orgId: string, siteId: string) {
    if (!(await registry.siteExists(db, orgId, siteId)) && !(await haStore.get(db, orgId, siteId))) throw errors.notFound();
  }

  function summary(r: HaSiteRow, now: Date) {
    const link = linkState(r.last_telemetry_at, now);
    return {
      site_id: r.site_id,
      mapping_status: r.mapping_status,
      entities: r.entities.length,
      mapped_entities: r.mapping_status === 'confirmed' ? r.mapping.length : 0,
      reported_at: isoTimeOrNull(r.reported_at),
      last_telemetry_at: isoTimeOrNull(r.last_telemetry_at),
      state: link.state,
    };
  }

  function detail(r: HaSiteRow, now: Date) {
    return {
      ...summary(r, now),
      connector_asset_id: connectorAssetId(r.site_id),
      reported_entities: r.entities,
      mapping: r.mapping,
      mapping_confirmed_at: isoTimeOrNull(r.mapping_confirmed_at),
      mapping_confirmed_by: r.mapping_confirmed_by,
      readings: {
        received: Number(r.readings_received),
        stored: Number(r.readings_stored),
        unmapped: Number(r.readings_unmapped),
        rejected: Number(r.readings_rejected),
      },
      read_only: true as const,
    };
  }

  async function get(orgId: string, siteId: string) {
    const r = await haStore.get(db, orgId, siteId);
    if (!r) throw errors.notFound();
    return r;
  }

  return {
    async connectorMapping(ctx: RequestContext, siteId: string) {
      await requireSite(ctx.orgId, siteId);
      const r = await haStore.get(db, ctx.orgId, siteId);
      const status = r?.mapping_status ?? 'none';
      return {
        site_id: siteId,
        status,
        entries: status === 'confirmed' ? r!.mapping : [],
        proposed: status === 'proposed' ? r!.mapping : [],
        connector_asset_id: connectorAssetId(siteId),
        read_only: true as const,
      };
    },

    async report(ctx: RequestContext, siteId: string, body: { entities: Entity[] }) {
      await requireSite(ctx.orgId, siteId);
      const seen = new Set<string>();
      for (const [i, e] of body.entities.entries()) {
        if (seen.has(e.entity_id)) throw connectErrors.field(['entities', i, 'entity_id'], `Entity '${e.entity_id}' is listed twice`, e.entity_id);
        seen.add(e.entity_id);
      }
      const now = clock.now();
      const assets = await registry.siteAssets(db, ctx.orgId, siteId);
      const proposal = proposeMapping(body.entities, assets);
      const row = await db.tx(async (q) => {
        const cur = await haStore.ensure(q, ctx.orgId, siteId, now);
        // A confirmed mapping stands until a person edits or withdraws it; otherwise the proposal is refreshed.
        await haStore.setReport(q, ctx.orgId, siteId, body.entities, cur.mapping_status === 'confirmed' ? null : proposal.mapping, now);
        return (await haStore.get(q, ctx.orgId, siteId))!;
      });
      return { site_id: siteId, entities: body.entities.length, mapping_status: row.mapping_status, proposed: proposal.mapping, ignored: proposal.ignored };
    },

    async telemetry(ctx: RequestContext, siteId: string, body: { readings: Reading[]; health?: object }) {
      await requireSite(ctx.orgId, siteId);
      const r = await haStore.get(db, ctx.orgId, siteId);
      const mapping = new Map<string, MappingEntry>(r?.mapping_status === 'confirmed' ? r.mapping.map((m: MappingEntry) => [m.entity_id, m]) : []);
      const units = new Map<string, string>((r?.entities ?? []).map((e: Entity) => [e.entity_id, e.unit_of_measurement ?? '']));
      type Out = {
        index: number;
        entity_id: string;
        status: 'stored' | 'unmapped' | 'rejected';
        asset_id: string | null;
        measurement: string | null;
        value: number | null;
        reason?: string;
        message?: string;
      };
      const results: Out[] = [];
      const records = new Map<string, Record<string, unknown>>();
      const members = new Map<string, number[]>();
      const unmapped: Record<string, unknown>[] = [];
      for (const [index, rd] of body.readings.entries()) {
        const m = mapping.get(rd.entity_id);
        if (!m) {
          unmapped.push({
            entity_id: rd.entity_id,
            state: rd.state,
            unit_of_measurement: rd.unit_of_measurement ?? units.get(rd.entity_id) ?? null,
            ts: rd.ts,
          });
          results.push({
            index,
            entity_id: rd.entity_id,
            status: 'unmapped',
            asset_id: null,
            measurement: null,
            value: null,
            reason: 'not in the confirmed mapping: kept in raw of the connector record',
          });
          continue;
        }
        const c = normalise(rd.state, rd.unit_of_measurement ?? units.get(rd.entity_id) ?? m.unit, m.measurement, m.sign);
        if (!c.ok) {
          results.push({
            index,
            entity_id: rd.entity_id,
            status: 'rejected',
            asset_id: m.asset_id,
            measurement: m.measurement,
            value: null,
            reason: c.reason,
            message: c.message,
          });
          continue;
        }
        const key = `${m.asset_id}\u0000${rd.ts}`;
        const rec = records.get(key) ?? { asset_id: m.asset_id, ts: rd.ts, site_ref: siteId, connector: 'home-automation', entities: {} };
        rec[m.measurement] = c.value;
        (rec.entities as Record<string, unknown>)[rd.entity_id] = {
          state: rd.state,
          unit_of_measurement: rd.unit_of_measurement ?? m.unit,
          measurement: m.measurement,
          sign: m.sign,
        };
        records.set(key, rec);
        members.set(key, [...(members.get(key) ?? []), results.length]);
        results.push({ index, entity_id: rd.entity_id, status: 'stored', asset_id: m.asset_id, measurement: m.measurement, value: c.value });
      }
      const keys = [...records.keys()];
      const toJudge = keys.map((k) => records.get(k)!);
      if (unmapped.length || body.health) {
        toJudge.push({
          asset_id: connectorAssetId(siteId),
          ts: clock.now().toISOString(),
          site_ref: siteId,
          connector: 'home-automation',
          status: typeof (body.health as Record<string, unknown> | undefined)?.status === 'string' ? (body.health as Record<string, string>).status : 'online',
          ...(unmapped.length && { unmapped_entities: unmapped }),
          ...(body.health && { health: body.health }),
        });
      }
      const judged = writer.judge(ctx.orgId, toJudge);
      const rows: Extract<(typeof judged)[number], { ok: true }>['row'][] = [];
      for (const j of judged) {
        if (j.ok) {
          rows.push(j.row);
          continue;
        }
        // A record the telemetry rules refuse (e.g. an unreadable ts) refuses its readings.
        for (const ri of members.get(keys[j.index]) ?? []) {
          Object.assign(results[ri], { status: 'rejected', value: null, reason: j.reason, message: j.message });
        }
      }
      const now = clock.now();
      const count = (s: Out['status']) => results.filter((x) => x.status === s).length;
      await db.tx(async (q) => {
        await haStore.ensure(q, ctx.orgId, siteId, now);
        await writer.writeInTx(q, ctx.orgId, now, rows);
        await haStore.addTelemetry(
          q,
          ctx.orgId,
          siteId,
          { received: body.readings.length, stored: count('stored'), unmapped: count('unmapped'), rejected: count('rejected'), health: body.health },
          now,
        );
      });
      await writer.committed(ctx.orgId, now, rows);
      return {
        site_id: siteId,
        count: body.readings.length,
        stored: count('stored'),
        unmapped: count('unmapped'),
        rejected: count('rejected'),
        records_written: rows.length,
        results,
      };
    },

    async sites(ctx: RequestContext) {
      const now = clock.now();
      return { sites: (await haStore.list(db, ctx.orgId)).map((r) => summary(r, now)) };
    },

    async site(ctx: RequestContext, siteId: string) {
      return detail(await get(ctx.orgId, siteId), clock.now());
    },

    async health(ctx: RequestContext, siteId: string) {
      const r = await get(ctx.orgId, siteId);
      const link = linkState(r.last_telemetry_at, clock.now());
      return {
        site_id: siteId,
        state: link.state,
        reason: link.reason,
        thresholds: { late_after_s: HA_LATE_AFTER_S, silent_after_s: HA_SILENT_AFTER_S },
        last_telemetry_at: isoTimeOrNull(r.last_telemetry_at),
        reported_at: isoTimeOrNull(r.reported_at),
        connector_health: r.health,
        connector_health_at: isoTimeOrNull(r.health_at),
        readings: {
          received: Number(r.readings_received),
          stored: Number(r.readings_stored),
          unmapped: Number(r.readings_unmapped),
          rejected: Number(r.readings_rejected),
        },
      };
    },

    async putMapping(ctx: RequestContext, siteId: string, body: { entries?: (Omit<MappingEntry, 'reason' | 'sign'> & { sign?: Sign })[] }) {
      const now = clock.now();
      const assets = new Map((await registry.siteAssets(db, ctx.orgId, siteId)).map((a) => [a.asset_id, a]));
      return db.tx(async (q) => {
        const cur = await haStore.get(q, ctx.orgId, siteId, { forUpdate: true });
        if (!cur) throw errors.notFound();
        let entries: MappingEntry[];
        if (body.entries) {
          const seen = new Set<string>();
          entries = body.entries.map((e, i) => {
            if (seen.has(e.entity_id)) throw connectErrors.field(['entries', i, 'entity_id'], `Entity '${e.entity_id}' is listed twice`, e.entity_id);
            seen.add(e.entity_id);
            if (!assets.has(e.asset_id))
              throw connectErrors.field(['entries', i, 'asset_id'], `No asset '${e.asset_id}' is registered at site ${siteId}`, e.asset_id);
            const unit = canonicalUnit(e.unit);
            if (!unit || (measurementOfUnit(unit) !== e.measurement && !(e.measurement === 'soc_pct' && unit === '%'))) {
              throw connectErrors.field(['entries', i, 'unit'], `Unit '${e.unit}' does not measure ${e.measurement}`, e.unit);
            }
            return {
              entity_id: e.entity_id,
              asset_id: e.asset_id,
              measurement: e.measurement,
              unit,
              sign: e.sign ?? defaultSign(assets.get(e.asset_id)!.asset_class),
            };
          });
        } else {
          if (cur.mapping_status !== 'proposed' || !cur.mapping.length) throw connectErrors.noMapping();
          entries = cur.mapping;
        }
        await haStore.setMapping(q, ctx.orgId, siteId, entries, 'confirmed', actorId(ctx), now);
        await audit.record(q, ctx, {
          action: 'connect.ha.mapping.confirm',
          targetType: 'site',
          targetId: siteId,
          details: { entries: entries.length, edited: !!body.entries },
        });
        return detail((await haStore.get(q, ctx.orgId, siteId))!, now);
      });
    },

    async deleteMapping(ctx: RequestContext, siteId: string) {
      const now = clock.now();
      return db.tx(async (q) => {
        const cur = await haStore.get(q, ctx.orgId, siteId, { forUpdate: true });
        if (!cur) throw errors.notFound();
        await haStore.setMapping(q, ctx.orgId, siteId, [], 'withdrawn', null, now);
        await audit.record(q, ctx, { action: 'connect.ha.mapping.withdraw', targetType: 'site', targetId: siteId, details: { entries: cur.mapping.length } });
        return detail((await haStore.get(q, ctx.orgId, siteId))!, now);
      });
    },
  };
}

export type HomeAutomation = ReturnType<typeof createHomeAutomation>;
