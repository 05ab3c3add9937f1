// The hub's rules behind its REST operations: sites, charge point registration (password shown once),
// price schedule versions (draft -> published, never edited after), quotes, transactions and their
// cost, reliability from connector status history, PCPR 2023 compliance, and load sharing.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { toPage } from '../../platform/cursor.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { OrgDirectory } from '../orgs/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import type { AuditLog } from '../audit/index.ts';
import { hubStore as store, type ChargePointRow, type ScheduleRow, type SiteFields, type SiteRow, type TransactionRow } from './store.ts';
import { hashPassword, OCPP_PATH, SUBPROTOCOLS, type OcppGateway } from './ocpp.ts';
import { bandProblems, costSession, pencePerKwhIncVat, COST_METHOD, QUOTE_METHOD, type Schedule } from './tariff.ts';
import { hubErrors } from './errors.ts';
import { anomalyView, CLOCK_TOLERANCE_MS } from './meter-rules.ts';
import { DUTIES, PCPR, RAPID_KW, RELIABILITY_METHOD, COMPLIANCE_METHOD, reliabilityOf, complianceOf } from './pcpr.ts';

const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 20 characters (OCPP 1.6 AuthorizationKey and 2.0.1 BasicAuthPassword both take 16 to 20+). */
function newPassword(): string {
  const bytes = randomBytes(40);
  let out = '';
  for (const b of bytes) {
    if (b >= 248) continue; // 248 = 62 * 4: no modulo bias
    out += PASSWORD_ALPHABET[b % 62];
    if (out.length === 20) return out;
  }
  return newPassword();
}

export const LOAD_SHARING_METHOD =
  "The capacity is split equally across the site's open transactions, each share capped at its charger's rated power and what is left over shared again " +
  'among the rest; each charger gets SetChargingProfile (TxProfile, Absolute, a single period from 0 s, limit in W) for its transaction.';

const num = (s: string | null) => (s === null ? null : Number(s));

function siteView(r: SiteRow) {
  return {
    site_id: r.site_id,
    name: r.name,
    address: r.address,
    postcode: r.postcode,
    capacity_kw: num(r.capacity_kw),
    helpline_phone: r.helpline_phone,
    helpline_24_7: r.helpline_24_7,
    open_data_url: r.open_data_url,
    payment_roaming: r.payment_roaming,
    created_at: isoTime(r.created_at),
    updated_at: isoTime(r.updated_at),
  };
}

export const toSchedule = (r: ScheduleRow): Schedule => ({
  version: r.version,
  energy_p_per_kwh: r.energy_p_per_kwh,
  time_p_per_minute: r.time_p_per_minute,
  connection_fee_p: r.connection_fee_p,
  overstay_p_per_minute: r.overstay_p_per_minute,
  overstay_grace_minutes: r.overstay_grace_minutes,
  vat_percent: r.vat_percent,
  bands: r.bands,
});

/** numeric text as PostgreSQL gives it back, trimmed of trailing zeros ("45.500000" -> "45.5"). */
const plain = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);

function scheduleView(r: ScheduleRow) {
  return {
    site_id: r.site_id,
    version: r.version,
    status: r.status,
    energy_p_per_kwh: plain(r.energy_p_per_kwh),
    time_p_per_minute: plain(r.time_p_per_minute),
    connection_fee_p: plain(r.connection_fee_p),
    overstay_p_per_minute: plain(r.overstay_p_per_minute),
    overstay_grace_minutes: r.overstay_grace_minutes,
    vat_percent: plain(r.vat_percent),
    bands: r.bands,
    energy_p_per_kwh_inc_vat: pencePerKwhIncVat({ ...toSchedule(r), bands: [] }, 0),
    note: r.note,
    created_at: isoTime(r.created_at),
    published_at: isoTimeOrNull(r.published_at),
  };
}

function txView(t: TransactionRow) {
  const start = Number(t.meter_start_wh);
  const end = Number(t.meter_stop_wh ?? t.last_meter_wh ?? t.meter_start_wh);
  return {
    transaction_id: t.transaction_id,
    site_id: t.site_id,
    charge_point_id: t.charge_point_id,
    connector_id: t.connector_id,
    ocpp_transaction_id: t.ocpp_transaction_id,
    ocpp_version: t.ocpp_version,
    id_tag: t.id_tag,
    started_at: isoTime(t.started_at),
    stopped_at: isoTimeOrNull(t.stopped_at),
    meter_start_wh: start,
    meter_stop_wh: t.meter_stop_wh === null ? null : Number(t.meter_stop_wh),
    energy_kwh: (Math.max(0, end - start) / 1000).toFixed(3),
    stop_reason: t.stop_reason,
    schedule_version: t.schedule_version,
    meter_anomalies: anomalyView(t.meter_anomalies),
  };
}

const siteFields = (b: Partial<SiteFields> & { name: string }): SiteFields => ({
  name: b.name,
  address: b.address ?? null,
  postcode: b.postcode ?? null,
  capacity_kw: b.capacity_kw ?? null,
  helpline_phone: b.helpline_phone ?? null,
  helpline_24_7: b.helpline_24_7 ?? null,
  open_data_url: b.open_data_url ?? null,
  payment_roaming: b.payment_roaming ?? null,
});

export function createHubService(deps: {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  orgs: OrgDirectory;
  registry: RegistrySites;
  audit: AuditLog;
  gateway: OcppGateway;
  publicUrl: () => string;
}) {
  const { db, clock, cursors, gateway } = deps;

  async function siteOr404(orgId: string, siteId: string) {
    const s = await store.site(db, orgId, siteId);
    if (!s) throw hubErrors.siteNotFound();
    return s;
  }

  async function chargePointViews(orgId: string, cps: ChargePointRow[]) {
    const latest = await store.latestStatus(
      db,
      orgId,
      cps.map((c) => c.charge_point_id),
    );
    return cps.map((c) => ({
      charge_point_id: c.charge_point_id,
      asset_id: c.asset_id,
      max_power_kw: Number(c.max_power_kw),
      rapid: Number(c.max_power_kw) >= RAPID_KW,
      connectors: c.connectors,
      contactless: c.contactless,
      connected: c.connected_instance !== null,
      ocpp_version: c.ocpp_version,
      vendor: c.vendor,
      model: c.model,
      firmware: c.firmware,
      last_boot_at: isoTimeOrNull(c.last_boot_at),
      last_heartbeat_at: isoTimeOrNull(c.last_heartbeat_at),
      connector_status: latest
        .filter((s) => s.charge_point_id === c.charge_point_id && s.connector_id > 0)
        .map((s) => ({ connector_id: s.connector_id, status: s.status, ocpi_status: s.ocpi_status, since: isoTime(s.ts) })),
    }));
  }

  return {
    async listSites(ctx: RequestContext, query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listHubSites', orgId: ctx.orgId };
      const pos = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
      const rows = await store.sitesPage(db, ctx.orgId, pos ? { t: pos.t, id: String(pos.id) } : undefined, limit);
      const page = toPage(rows, limit, (r) => ({ t: r.pos, id: r.site_id }), cursors, binding);
      return { sites: page.items.map(siteView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async createSite(ctx: RequestContext, body: Partial<SiteFields> & { name: string; site_id?: string }) {
      const siteId = body.site_id ?? `site-${randomUUID().slice(0, 8)}`;
      return db.tx(async (q) => {
        const row = await store.insertSite(q, ctx.orgId, siteId, siteFields(body), clock.now());
        if (!row) throw hubErrors.siteExists();
        await deps.audit.record(q, ctx, { action: 'hub.site.create', targetType: 'hub_site', targetId: siteId, details: {} });
        return siteView(row);
      });
    },

    async getSite(ctx: RequestContext, siteId: string) {
      const s = await siteOr404(ctx.orgId, siteId);
      const cps = await store.chargePointsOfSite(db, ctx.orgId, siteId);
      return { ...siteView(s), charge_points: await chargePointViews(ctx.orgId, cps) };
    },

    async putSite(ctx: RequestContext, siteId: string, body: Partial<SiteFields> & { name: string }) {
      return db.tx(async (q) => {
        const row = await store.updateSite(q, ctx.orgId, siteId, siteFields(body), clock.now());
        if (!row) throw hubErrors.siteNotFound();
        await deps.audit.record(q, ctx, { action: 'hub.site.update', targetType: 'hub_site', targetId: siteId, details: {} });
        return siteView(row);
      });
    },

    async registerChargePoint(
      ctx: RequestContext,
      siteId: string,
      body: { charge_point_id: string; max_power_kw: number; connectors?: number; contactless?: boolean | null },
    ) {
      const password = newPassword();
      const created = await db.tx(async (q) => {
        if (!(await store.site(q, ctx.orgId, siteId, true))) throw hubErrors.siteNotFound();
        if (await store.chargePoint(q, ctx.orgId, body.charge_point_id)) throw hubErrors.chargePointExists();
        await deps.registry.createAssets(q, ctx.orgId, siteId, [
          {
            asset_id: body.charge_point_id,
            asset_class: 'charger',
            type: 'charger',
            name: `Charge point ${body.charge_point_id}`,
            details: { max_power_kw: body.max_power_kw, connectors: body.connectors ?? 1, hub_site_id: siteId, protocol: 'ocpp' },
            parent_asset_id: null,
          },
        ]);
        const row = await store.insertChargePoint(
          q,
          ctx.orgId,
          {
            charge_point_id: body.charge_point_id,
            site_id: siteId,
            asset_id: body.charge_point_id,
            password_hash: hashPassword(password),
            max_power_kw: body.max_power_kw,
            connectors: body.connectors ?? 1,
            contactless: body.contactless ?? null,
          },
          clock.now(),
        );
        if (!row) throw hubErrors.chargePointExists();
        await deps.audit.record(q, ctx, {
          action: 'hub.charge_point.register',
          targetType: 'hub_charge_point',
          targetId: body.charge_point_id,
          details: { site_id: siteId },
        });
        return row;
      });
      const base = deps.publicUrl();
      const endpoint = `${base.replace(/\/$/, '')}${OCPP_PATH}/${encodeURIComponent(ctx.orgId)}`;
      return {
        charge_point_id: created.charge_point_id,
        site_id: siteId,
        asset_id: created.asset_id,
        ocpp_endpoint: endpoint,
        ocpp_url: `${endpoint}/${encodeURIComponent(created.charge_point_id)}`,
        subprotocols: [...SUBPROTOCOLS],
        security_profile: 1 as const,
        password,
      };
    },

    async listSchedules(ctx: RequestContext, siteId: string) {
      await siteOr404(ctx.orgId, siteId);
      const rows = await store.schedules(db, ctx.orgId, siteId);
      const inForce = await store.inForce(db, ctx.orgId, siteId, clock.now());
      return { schedules: rows.map(scheduleView), in_force: inForce?.version ?? null };
    },

    async createSchedule(
      ctx: RequestContext,
      siteId: string,
      body: {
        energy_p_per_kwh: string;
        time_p_per_minute?: string;
        connection_fee_p?: string;
        overstay_p_per_minute?: string;
        overstay_grace_minutes?: number;
        vat_percent?: string;
        bands?: { start: string; end: string; energy_p_per_kwh: string }[];
        note?: string;
      },
    ) {
      const bands = body.bands ?? [];
      const problems = bandProblems(bands);
      if (problems.length) throw hubErrors.bands(problems);
      for (const [k, v] of Object.entries({
        energy_p_per_kwh: body.energy_p_per_kwh,
        time_p_per_minute: body.time_p_per_minute,
        connection_fee_p: body.connection_fee_p,
        overstay_p_per_minute: body.overstay_p_per_minute,
      })) {
        if (v !== undefined && v.startsWith('-')) throw hubErrors.field([k], 'Prices are not negative', v);
      }
      bands.forEach((b, i) => {
        if (b.energy_p_per_kwh.startsWith('-')) throw hubErrors.field(['bands', i, 'energy_p_per_kwh'], 'Prices are not negative', b.energy_p_per_kwh);
      });
      return db.tx(async (q) => {
        if (!(await store.site(q, ctx.orgId, siteId, true))) throw hubErrors.siteNotFound();
        const row = await store.insertSchedule(
          q,
          ctx.orgId,
          siteId,
          {
            energy_p_per_kwh: body.energy_p_per_kwh,
            time_p_per_minute: body.time_p_per_minute ?? '0',
            connection_fee_p: body.connection_fee_p ?? '0',
            overstay_p_per_minute: body.overstay_p_per_minute ?? '0',
            overstay_grace_minutes: body.overstay_grace_minutes ?? 10,
            vat_percent: body.vat_percent ?? '20',
            bands,
            note: body.note ?? null,
          },
          clock.now(),
        );
        await deps.audit.record(q, ctx, { action: 'hub.price_schedule.create', targetType: 'hub_site', targetId: siteId, details: { version: row.version } });
        return scheduleView(row);
      });
    },

    async publish(ctx: RequestContext, siteId: string, version: number) {
      return db.tx(async (q) => {
        if (!(await store.site(q, ctx.orgId, siteId, true))) throw hubErrors.siteNotFound();
        const cur = await store.schedule(q, ctx.orgId, siteId, version, true);
        if (!cur) throw hubErrors.scheduleNotFound();
        if (cur.status === 'published') throw hubErrors.alreadyPublished();
        const row = await store.publish(q, ctx.orgId, siteId, version, clock.now());
        await deps.audit.record(q, ctx, { action: 'hub.price_schedule.publish', targetType: 'hub_site', targetId: siteId, details: { version } });
        return scheduleView(row);
      });
    },

    async quote(ctx: RequestContext, siteId: string, query: { energy_kwh: string; duration_minutes: number; start?: string; overstay_minutes?: number }) {
      await siteOr404(ctx.orgId, siteId);
      const now = clock.now();
      const start = query.start ? new Date(query.start) : now;
      // A start ahead is priced at the schedule drivers see now; a past one at the schedule then.
      const sched = await store.inForce(db, ctx.orgId, siteId, start.getTime() > now.getTime() ? now : start);
      if (!sched) throw hubErrors.noPublishedSchedule();
      const startMs = start.getTime();
      const stopMs = startMs + query.duration_minutes * 60_000;
      const wh = Math.round(Number(query.energy_kwh) * 1000);
      const overstay = (query.overstay_minutes ?? 0) * 60_000;
      // Connected for the duration plus the stated overstay; the overstay is charged beyond the grace period.
      const c = costSession(
        toSchedule(sched),
        [
          { t: startMs, wh: 0 },
          { t: stopMs, wh },
        ],
        startMs,
        stopMs + overstay,
        overstay,
      );
      return { site_id: siteId, start: isoTime(start), ...c, data_basis: { basis: 'calculated' as const, method: QUOTE_METHOD } };
    },

    async transactions(ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string }) {
      await siteOr404(ctx.orgId, siteId);
      const limit = query.limit ?? 50;
      const binding = { op: 'listHubTransactions', orgId: ctx.orgId, filters: { site_id: siteId } };
      const pos = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
      const rows = await store.transactionsPage(db, ctx.orgId, siteId, pos ? { t: pos.t, id: String(pos.id) } : undefined, limit);
      const page = toPage(rows, limit, (r) => ({ t: r.pos, id: r.transaction_id }), cursors, binding);
      return { transactions: page.items.map(txView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async cost(ctx: RequestContext, txId: string) {
      const tx = await store.transaction(db, ctx.orgId, txId);
      if (!tx) throw hubErrors.transactionNotFound();
      if (tx.schedule_version === null) throw hubErrors.noScheduleAtStart();
      const sched = await store.schedule(db, ctx.orgId, tx.site_id, tx.schedule_version);
      if (!sched) throw hubErrors.noScheduleAtStart();
      // The accepted samples within the transaction and not ahead of the clock (meter-rules.ts): rows
      // stored before the rules were judged when read.
      const startMs = tx.started_at.getTime();
      const stopMs = Math.min((tx.stopped_at ?? tx.last_meter_at ?? clock.now()).getTime(), clock.now().getTime() + CLOCK_TOLERANCE_MS);
      const samples = (await store.billedSamples(db, ctx.orgId, txId, tx.started_at, new Date(Math.max(startMs, stopMs)))).map((s) => ({
        t: s.ts.getTime(),
        wh: Number(s.wh),
      }));
      const lastRise = tx.energy_last_increase_at?.getTime() ?? startMs;
      const c = costSession(toSchedule(sched), samples, startMs, stopMs, tx.stopped_at ? Math.max(0, stopMs - lastRise) : 0);
      return {
        transaction_id: txId,
        status: tx.stopped_at ? ('stopped' as const) : ('open' as const),
        ...c,
        meter_anomalies: anomalyView(tx.meter_anomalies),
        data_basis: { basis: 'calculated' as const, method: COST_METHOD },
      };
    },

    async reliability(ctx: RequestContext, siteId: string) {
      await siteOr404(ctx.orgId, siteId);
      const cps = await store.chargePointsOfSite(db, ctx.orgId, siteId);
      const to = clock.now();
      const from = new Date(to);
      from.setUTCFullYear(from.getUTCFullYear() - 1);
      const history = await store.statusHistory(
        db,
        ctx.orgId,
        cps.map((c) => c.charge_point_id),
        from,
        to,
      );
      return { site_id: siteId, ...reliabilityOf(cps, history, from, to), data_basis: { basis: 'calculated' as const, method: RELIABILITY_METHOD } };
    },

    async compliance(ctx: RequestContext, siteId: string) {
      const site = await siteOr404(ctx.orgId, siteId);
      const cps = await store.chargePointsOfSite(db, ctx.orgId, siteId);
      const now = clock.now();
      const from = new Date(now);
      from.setUTCFullYear(from.getUTCFullYear() - 1);
      const history = await store.statusHistory(
        db,
        ctx.orgId,
        cps.map((c) => c.charge_point_id),
        from,
        now,
      );
      const rel = reliabilityOf(cps, history, from, now);
      const sched = await store.inForce(db, ctx.orgId, siteId, now);
      const duties = complianceOf({
        site,
        cps,
        reliability: rel,
        schedule: sched ? { version: sched.version, incVat: pencePerKwhIncVat({ ...toSchedule(sched), bands: [] }, 0) } : null,
        now,
      });
      const summary = { met: 0, not_met: 0, not_known: 0, not_applicable: 0 };
      for (const d of duties) summary[d.result]++;
      return { site_id: siteId, assessed_at: isoTime(now), summary, duties, data_basis: { basis: 'calculated' as const, method: COMPLIANCE_METHOD } };
    },

    regulations: () => ({ ...PCPR, duties: DUTIES }),

    async loadSharing(ctx: RequestContext, siteId: string, body: { capacity_kw?: number }) {
      if ((await deps.orgs.realmOf(ctx.orgId)) !== 'demo') throw hubErrors.demoOnly();
      const site = await siteOr404(ctx.orgId, siteId);
      const capacity = body.capacity_kw ?? num(site.capacity_kw);
      if (capacity === null) throw hubErrors.noCapacity();
      const open = await store.openTransactions(db, ctx.orgId, siteId);
      const cps = new Map((await store.chargePointsOfSite(db, ctx.orgId, siteId)).map((c) => [c.charge_point_id, c]));
      // Equal shares, capped at each charger's rating; what a capped one leaves goes to the others.
      const limits = new Map<string, number>();
      let left = capacity;
      let todo = open.filter((t) => cps.has(t.charge_point_id));
      while (todo.length) {
        const share = left / todo.length;
        const capped = todo.filter((t) => Number(cps.get(t.charge_point_id)!.max_power_kw) <= share);
        if (!capped.length) {
          for (const t of todo) limits.set(t.transaction_id, share);
          break;
        }
        for (const t of capped) {
          const rated = Number(cps.get(t.charge_point_id)!.max_power_kw);
          limits.set(t.transaction_id, rated);
          left -= rated;
        }
        todo = todo.filter((t) => !capped.includes(t));
      }
      const sessions = [];
      for (const t of open) {
        const cp = cps.get(t.charge_point_id);
        const limitKw = Math.floor((limits.get(t.transaction_id) ?? 0) * 1000) / 1000;
        const w = Math.floor(limitKw * 1000);
        const payload =
          t.ocpp_version === 'ocpp1.6'
            ? {
                connectorId: t.connector_id,
                csChargingProfiles: {
                  chargingProfileId: 1,
                  transactionId: Number(t.ocpp_transaction_id),
                  stackLevel: 0,
                  chargingProfilePurpose: 'TxProfile',
                  chargingProfileKind: 'Absolute',
                  chargingSchedule: { chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: w }] },
                },
              }
            : {
                evseId: t.connector_id,
                chargingProfile: {
                  id: 1,
                  stackLevel: 0,
                  chargingProfilePurpose: 'TxProfile',
                  chargingProfileKind: 'Absolute',
                  transactionId: t.ocpp_transaction_id,
                  chargingSchedule: [{ id: 1, chargingRateUnit: 'W', chargingSchedulePeriod: [{ startPeriod: 0, limit: w }] }],
                },
              };
        const out = cp
          ? await gateway.command(ctx.orgId, cp, 'SetChargingProfile', payload)
          : { delivery: 'not_connected' as const, result: null, error: 'Charge point not registered' };
        sessions.push({
          transaction_id: t.transaction_id,
          charge_point_id: t.charge_point_id,
          connector_id: t.connector_id,
          limit_kw: limitKw,
          delivery: out.delivery,
          charger_status: typeof out.result?.status === 'string' ? out.result.status : null,
          error: out.error,
        });
      }
      return { site_id: siteId, capacity_kw: capacity, sessions, data_basis: { basis: 'calculated' as const, method: LOAD_SHARING_METHOD } };
    },
  };
}

export type HubService = ReturnType<typeof createHubService>;
