// What the hub's services share: their dependencies, the views of stored rows, the site lookup.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { CursorCodec } from '../../../platform/cursor.ts';
import { isoTime, isoTimeOrNull } from '../../../platform/schema-kit.ts';
import type { OrgDirectory } from '../../orgs/index.ts';
import type { RegistrySites } from '../../registry/index.ts';
import type { AuditLog } from '../../audit/index.ts';
import { hubStore as store, type ChargePointRow, type ScheduleRow, type SiteFields, type SiteRow, type TransactionRow } from '../store.ts';
import type { OcppGateway } from '../ocpp.ts';
import { pencePerKwhIncVat, type Schedule } from '../tariff.ts';
import { hubErrors } from '../errors.ts';
import { anomalyView } from '../meter-rules.ts';
import { RAPID_KW } from '../pcpr.ts';
import { kwhText } from '../../../kit/decimal.ts';

export interface HubDeps {
  db: Db;
  clock: Clock;
  cursors: CursorCodec;
  orgs: OrgDirectory;
  registry: RegistrySites;
  audit: AuditLog;
  gateway: OcppGateway;
  publicUrl: () => string;
  /** Told when a boot's aligned-metering request joins one already waiting (decision 0493). */
  onAlignmentFolded?: () => void;
}

export const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 20 characters (OCPP 1.6 AuthorizationKey and 2.0.1 BasicAuthPassword both take 16 to 20+). */
export function newPassword(): string {
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

export const num = (s: string | null) => (s === null ? null : Number(s));

export function siteView(r: SiteRow) {
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
    free_vend: r.free_vend,
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
export const plain = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);

export function scheduleView(r: ScheduleRow) {
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

export function txView(t: TransactionRow) {
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
    energy_kwh: kwhText(Math.max(0, end - start)),
    stop_reason: t.stop_reason,
    schedule_version: t.schedule_version,
    authorisation: t.authorisation,
    id_token_status: t.id_token_status,
    meter_anomalies: anomalyView(t.meter_anomalies),
  };
}

export const siteFields = (b: Partial<SiteFields> & { name: string }): SiteFields => ({
  name: b.name,
  address: b.address ?? null,
  postcode: b.postcode ?? null,
  capacity_kw: b.capacity_kw ?? null,
  helpline_phone: b.helpline_phone ?? null,
  helpline_24_7: b.helpline_24_7 ?? null,
  open_data_url: b.open_data_url ?? null,
  payment_roaming: b.payment_roaming ?? null,
  free_vend: b.free_vend ?? false,
});

export async function siteOr404(db: Db, orgId: string, siteId: string) {
  const s = await store.site(db, orgId, siteId);
  if (!s) throw hubErrors.siteNotFound();
  return s;
}

export async function chargePointViews(db: Db, orgId: string, cps: ChargePointRow[]) {
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
    local_list_version: c.local_list_version,
    security_profile: c.security_profile,
    password_change_pending: c.pending_password_hash !== null,
    firmware_status: c.firmware_status === null ? null : { status: c.firmware_status, at: isoTime(c.firmware_status_at!) },
    diagnostics_status: c.diagnostics_status === null ? null : { status: c.diagnostics_status, at: isoTime(c.diagnostics_status_at!) },
    connector_status: latest
      .filter((s) => s.charge_point_id === c.charge_point_id && s.connector_id > 0)
      .map((s) => ({ connector_id: s.connector_id, status: s.status, ocpi_status: s.ocpi_status, since: isoTime(s.ts) })),
  }));
}
