// The hub's SQL: sites, charge points, connector status history, price schedules, transactions and
// their meter samples. Every function takes the organisation id first and filters on it.
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';
import type { Schedule } from './tariff.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { AnomalyCounts } from './meter-rules.ts';

export interface SiteRow {
  site_id: string;
  name: string;
  address: string | null;
  postcode: string | null;
  capacity_kw: string | null;
  helpline_phone: string | null;
  helpline_24_7: boolean | null;
  open_data_url: string | null;
  payment_roaming: boolean | null;
  free_vend: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface SiteFields {
  name: string;
  address: string | null;
  postcode: string | null;
  capacity_kw: number | null;
  helpline_phone: string | null;
  helpline_24_7: boolean | null;
  open_data_url: string | null;
  payment_roaming: boolean | null;
  free_vend: boolean;
}

export interface ChargePointRow {
  charge_point_id: string;
  site_id: string;
  asset_id: string;
  password_hash: string;
  max_power_kw: string;
  connectors: number;
  contactless: boolean | null;
  ocpp_version: string | null;
  vendor: string | null;
  model: string | null;
  firmware: string | null;
  serial_number: string | null;
  last_boot_at: Date | null;
  last_heartbeat_at: Date | null;
  connected_instance: string | null;
  connected_at: Date | null;
  created_at: Date;
  local_list_version: number;
  firmware_status: string | null;
  firmware_status_at: Date | null;
  diagnostics_status: string | null;
  diagnostics_status_at: Date | null;
  /** The OCPP security profile it must connect at (1, 2 or 3). */
  security_profile: SecurityProfile;
  /** A password sent to the charger and not yet confirmed (valid beside password_hash until then). */
  pending_password_hash: string | null;
}

export type SecurityProfile = 1 | 2 | 3;

/** A certificate authority of the organisation that issues its chargers' certificates (profile 3). */
export interface ChargerCaRow {
  fingerprint_sha256: string;
  certificate_pem: string;
  subject: string;
  not_before: Date;
  not_after: Date;
  created_at: Date;
}

export interface StatusRow {
  charge_point_id: string;
  connector_id: number;
  status: string;
  ocpi_status: string;
  error_code: string | null;
  ts: Date;
}

/** A stored price schedule: the schedule the tariff costs a session under, and its record. */
export interface ScheduleRow extends Schedule {
  site_id: string;
  status: 'draft' | 'published';
  note: string | null;
  created_at: Date;
  published_at: Date | null;
}

export interface TransactionRow {
  transaction_id: string;
  site_id: string;
  charge_point_id: string;
  connector_id: number;
  ocpp_transaction_id: string;
  ocpp_version: string;
  id_tag: string | null;
  started_at: Date;
  stopped_at: Date | null;
  meter_start_wh: string;
  meter_stop_wh: string | null;
  last_meter_wh: string | null;
  last_meter_at: Date | null;
  energy_last_increase_at: Date | null;
  stop_reason: string | null;
  schedule_version: number | null;
  /** Which authorisation applied at the start: id_token (checked against the organisation's tokens), free_vend (the site's choice), none (no token given). */
  authorisation: string | null;
  /** The status the hub answered for the transaction's token (OCPP terms), null when none was checked. */
  id_token_status: string | null;
  /** Refused and flagged meter samples by reason (meter-rules.ts). */
  meter_anomalies: AnomalyCounts;
}

export interface IdTokenRow {
  id_token: string;
  token_type: string;
  status: 'accepted' | 'blocked' | 'expired' | 'invalid';
  expires_at: Date | null;
  group_id: string | null;
  note: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface IdTokenFields {
  token_type: string;
  status: IdTokenRow['status'];
  expires_at: Date | null;
  group_id: string | null;
  note: string | null;
}

export type CommandStatus = 'pending' | 'accepted' | 'rejected' | 'timeout' | 'offline' | 'failed';

export interface CommandRow {
  command_id: string;
  charge_point_id: string;
  action: string;
  /** The command's parameters as the API was given them. */
  parameters: Record<string, unknown>;
  ocpp_version: string | null;
  /** The OCPP CALL's action and payload; null when none could be made (a charger that never connected). */
  ocpp_action: string | null;
  request: Record<string, unknown> | null;
  status: CommandStatus;
  response: Record<string, unknown> | null;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** What judging a transaction's meter samples needs (meter-rules.ts TxMeter), and its anomaly counts. */
export interface MeterStateRow {
  org_id: string;
  transaction_id: string;
  started_at: Date;
  stopped_at: Date | null;
  meter_start_known: boolean;
  start_wh: string;
  last_wh: string;
  last_meter_at: Date | null;
  max_power_kw: string | null;
  meter_anomalies: AnomalyCounts;
}

const TOKEN_COLS = 'id_token, token_type, status, expires_at, group_id, note, created_at, updated_at';
const COMMAND_COLS =
  'command_id, charge_point_id, action, parameters, ocpp_version, ocpp_action, request, status, response, error, created_by, created_at, completed_at';
const SITE_COLS =
  'site_id, name, address, postcode, capacity_kw::text, helpline_phone, helpline_24_7, open_data_url, payment_roaming, free_vend, created_at, updated_at';
const CP_COLS =
  'charge_point_id, site_id, asset_id, password_hash, max_power_kw::text, connectors, contactless, ocpp_version, vendor, model, firmware, serial_number, last_boot_at, last_heartbeat_at, connected_instance, connected_at, created_at, local_list_version, firmware_status, firmware_status_at, diagnostics_status, diagnostics_status_at, security_profile, pending_password_hash';
const CA_COLS = 'fingerprint_sha256, certificate_pem, subject, not_before, not_after, created_at';
const SCHEDULE_COLS =
  'site_id, version, status, energy_p_per_kwh::text, time_p_per_minute::text, connection_fee_p::text, overstay_p_per_minute::text, overstay_grace_minutes, vat_percent::text, bands, note, created_at, published_at';
const TX_COLS =
  'transaction_id, site_id, charge_point_id, connector_id, ocpp_transaction_id, ocpp_version, id_tag, started_at, stopped_at, meter_start_wh::text, meter_stop_wh::text, last_meter_wh::text, last_meter_at, energy_last_increase_at, stop_reason, schedule_version, meter_anomalies, authorisation, id_token_status';

export const hubStore = {
  // ---- sites ------------------------------------------------------------------------------------
  async insertSite(q: Queryable, orgId: string, siteId: string, f: SiteFields, now: Date): Promise<SiteRow | null> {
    const r = await q.query<SiteRow>(
      `insert into hub_sites (org_id, site_id, name, address, postcode, capacity_kw, helpline_phone, helpline_24_7, open_data_url, payment_roaming, created_at, updated_at, free_vend)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$11,$12) on conflict do nothing returning ${SITE_COLS}`,
      [orgId, siteId, f.name, f.address, f.postcode, f.capacity_kw, f.helpline_phone, f.helpline_24_7, f.open_data_url, f.payment_roaming, now, f.free_vend],
    );
    return r.rows[0] ?? null;
  },
  async updateSite(q: Queryable, orgId: string, siteId: string, f: SiteFields, now: Date): Promise<SiteRow | null> {
    const r = await q.query<SiteRow>(
      `update hub_sites set name=$3, address=$4, postcode=$5, capacity_kw=$6, helpline_phone=$7, helpline_24_7=$8, open_data_url=$9, payment_roaming=$10, updated_at=$11, free_vend=$12
       where org_id=$1 and site_id=$2 returning ${SITE_COLS}`,
      [orgId, siteId, f.name, f.address, f.postcode, f.capacity_kw, f.helpline_phone, f.helpline_24_7, f.open_data_url, f.payment_roaming, now, f.free_vend],
    );
    return r.rows[0] ?? null;
  },
  async site(q: Queryable, orgId: string, siteId: string, forUpdate = false): Promise<SiteRow | null> {
    const r = await q.query<SiteRow>(`select ${SITE_COLS} from hub_sites where org_id=$1 and site_id=$2${forUpdate ? ' for update' : ''}`, [orgId, siteId]);
    return r.rows[0] ?? null;
  },
  async sitesPage(q: Queryable, orgId: string, before: { t: string; id: string } | undefined, limit: number): Promise<(SiteRow & { pos: string })[]> {
    const r = await q.query<SiteRow & { pos: string }>(
      `select ${SITE_COLS}, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as pos from hub_sites
       where org_id=$1 and ($2::text is null or (to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), site_id) < ($2, $3))
       order by created_at desc, site_id desc limit $4`,
      [orgId, before?.t ?? null, before?.id ?? null, limit + 1],
    );
    return r.rows;
  },

  // ---- charge points ----------------------------------------------------------------------------
  async insertChargePoint(
    q: Queryable,
    orgId: string,
    cp: {
      charge_point_id: string;
      site_id: string;
      asset_id: string;
      password_hash: string;
      max_power_kw: number;
      connectors: number;
      contactless: boolean | null;
      security_profile: SecurityProfile;
    },
    now: Date,
  ): Promise<ChargePointRow | null> {
    const r = await q.query<ChargePointRow>(
      `insert into hub_charge_points (org_id, charge_point_id, site_id, asset_id, password_hash, max_power_kw, connectors, contactless, created_at, security_profile)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) on conflict do nothing returning ${CP_COLS}`,
      [orgId, cp.charge_point_id, cp.site_id, cp.asset_id, cp.password_hash, cp.max_power_kw, cp.connectors, cp.contactless, now, cp.security_profile],
    );
    return r.rows[0] ?? null;
  },
  async setSecurityProfile(q: Queryable, orgId: string, cpId: string, profile: SecurityProfile): Promise<ChargePointRow | null> {
    const r = await q.query<ChargePointRow>(`update hub_charge_points set security_profile=$3 where org_id=$1 and charge_point_id=$2 returning ${CP_COLS}`, [
      orgId,
      cpId,
      profile,
    ]);
    return r.rows[0] ?? null;
  },
  /** A new password sent to the charger: valid beside the current one until confirmed. */
  async setPendingPassword(q: Queryable, orgId: string, cpId: string, hash: string): Promise<void> {
    await q.query('update hub_charge_points set pending_password_hash=$3 where org_id=$1 and charge_point_id=$2', [orgId, cpId, hash]);
  },
  /** The charger took the password (it accepted it, or connected with it): from now on the only one. */
  async confirmPassword(q: Queryable, orgId: string, cpId: string, hash: string): Promise<void> {
    await q.query(
      `update hub_charge_points set password_hash=$3, pending_password_hash = case when pending_password_hash=$3 then null else pending_password_hash end
       where org_id=$1 and charge_point_id=$2`,
      [orgId, cpId, hash],
    );
  },
  /** The charger refused the password: it is no longer valid (unless another rotation replaced it meanwhile). */
  async dropPendingPassword(q: Queryable, orgId: string, cpId: string, hash: string): Promise<void> {
    await q.query('update hub_charge_points set pending_password_hash=null where org_id=$1 and charge_point_id=$2 and pending_password_hash=$3', [
      orgId,
      cpId,
      hash,
    ]);
  },

  // ---- the organisation's charger certificate authorities (profile 3) ------------------------
  async chargerCas(q: Queryable, orgId: string): Promise<ChargerCaRow[]> {
    const r = await q.query<ChargerCaRow>(`select ${CA_COLS} from hub_charger_cas where org_id=$1 order by not_before, fingerprint_sha256`, [orgId]);
    return r.rows;
  },
  async replaceChargerCas(q: Queryable, orgId: string, cas: Omit<ChargerCaRow, 'created_at'>[], now: Date): Promise<void> {
    await q.query('delete from hub_charger_cas where org_id=$1', [orgId]);
    for (const c of cas) {
      await q.query(
        `insert into hub_charger_cas (org_id, fingerprint_sha256, certificate_pem, subject, not_before, not_after, created_at) values ($1,$2,$3,$4,$5,$6,$7)
         on conflict do nothing`,
        [orgId, c.fingerprint_sha256, c.certificate_pem, c.subject, c.not_before, c.not_after, now],
      );
    }
  },
  async deleteChargerCas(q: Queryable, orgId: string): Promise<number> {
    const r = await q.query('delete from hub_charger_cas where org_id=$1', [orgId]);
    return r.rowCount ?? 0;
  },
  async chargePoint(q: Queryable, orgId: string, cpId: string): Promise<ChargePointRow | null> {
    const r = await q.query<ChargePointRow>(`select ${CP_COLS} from hub_charge_points where org_id=$1 and charge_point_id=$2`, [orgId, cpId]);
    return r.rows[0] ?? null;
  },
  async chargePointsOfSite(q: Queryable, orgId: string, siteId: string): Promise<ChargePointRow[]> {
    const r = await q.query<ChargePointRow>(`select ${CP_COLS} from hub_charge_points where org_id=$1 and site_id=$2 order by charge_point_id`, [
      orgId,
      siteId,
    ]);
    return r.rows;
  },
  async connected(q: Queryable, orgId: string, cpId: string, instance: string, now: Date, version: string): Promise<void> {
    await q.query('update hub_charge_points set connected_instance=$3, connected_at=$4, ocpp_version=$5 where org_id=$1 and charge_point_id=$2', [
      orgId,
      cpId,
      instance,
      now,
      version,
    ]);
  },
  /** Clears the connection only when this instance still holds it (a reconnect elsewhere may have taken it). */
  async disconnected(q: Queryable, orgId: string, cpId: string, instance: string): Promise<boolean> {
    const r = await q.query('update hub_charge_points set connected_instance=null where org_id=$1 and charge_point_id=$2 and connected_instance=$3', [
      orgId,
      cpId,
      instance,
    ]);
    return (r.rowCount ?? 0) > 0;
  },
  async booted(
    q: Queryable,
    orgId: string,
    cpId: string,
    b: { vendor: string; model: string; firmware: string | null; serial: string | null },
    now: Date,
  ): Promise<void> {
    await q.query(
      'update hub_charge_points set vendor=$3, model=$4, firmware=$5, serial_number=$6, last_boot_at=$7, last_heartbeat_at=$7 where org_id=$1 and charge_point_id=$2',
      [orgId, cpId, b.vendor, b.model, b.firmware, b.serial, now],
    );
  },
  /** The charger's last firmware or diagnostics (log upload) status. */
  async transferStatus(q: Queryable, orgId: string, cpId: string, kind: 'firmware' | 'diagnostics', status: string, now: Date): Promise<void> {
    await q.query(
      kind === 'firmware'
        ? 'update hub_charge_points set firmware_status=$3, firmware_status_at=$4 where org_id=$1 and charge_point_id=$2'
        : 'update hub_charge_points set diagnostics_status=$3, diagnostics_status_at=$4 where org_id=$1 and charge_point_id=$2',
      [orgId, cpId, status, now],
    );
  },
  /**
   * Heartbeats of several charge points (any organisations) in one statement: each one's newest
   * time, never moved back; rows locked in (org, charge point) order so two instances' batches
   * cannot deadlock.
   */
  async heartbeats(q: Queryable, beats: readonly { orgId: string; cpId: string; at: Date }[]): Promise<void> {
    const newest = new Map<string, { orgId: string; cpId: string; at: Date }>();
    for (const b of beats) {
      const k = `${b.orgId}\u0000${b.cpId}`;
      const seen = newest.get(k);
      if (!seen || seen.at < b.at) newest.set(k, b);
    }
    const rows = [...newest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, b]) => b);
    await q.query(
      `update hub_charge_points c set last_heartbeat_at = v.at
         from unnest($1::text[], $2::text[], $3::timestamptz[]) as v(org_id, charge_point_id, at)
        where c.org_id = v.org_id and c.charge_point_id = v.charge_point_id
          and (c.last_heartbeat_at is null or c.last_heartbeat_at < v.at)`,
      [rows.map((r) => r.orgId), rows.map((r) => r.cpId), rows.map((r) => r.at)],
    );
  },

  // ---- connector status -------------------------------------------------------------------------
  async insertStatus(q: Queryable, orgId: string, s: StatusRow, now: Date): Promise<void> {
    await q.query(
      'insert into hub_connector_status (org_id, charge_point_id, connector_id, status, ocpi_status, error_code, ts, received_at) values ($1,$2,$3,$4,$5,$6,$7,$8)',
      [orgId, s.charge_point_id, s.connector_id, s.status, s.ocpi_status, s.error_code, s.ts, now],
    );
  },
  /**
   * A 2.0.1 connector's newest status within its EVSE (an older report than the one kept changes
   * nothing); answers the newest status of each connector of that EVSE.
   */
  async evseConnectorStatus(q: Queryable, orgId: string, cpId: string, evseId: number, connectorId: number, status: string, ts: Date): Promise<string[]> {
    await q.query(
      `insert into hub_evse_connectors (org_id, charge_point_id, evse_id, connector_id, status, ts) values ($1,$2,$3,$4,$5,$6)
       on conflict (org_id, charge_point_id, evse_id, connector_id) do update set status = excluded.status, ts = excluded.ts
       where hub_evse_connectors.ts <= excluded.ts`,
      [orgId, cpId, evseId, connectorId, status, ts],
    );
    const r = await q.query<{ status: string }>(
      'select status from hub_evse_connectors where org_id=$1 and charge_point_id=$2 and evse_id=$3 order by connector_id',
      [orgId, cpId, evseId],
    );
    return r.rows.map((x) => x.status);
  },
  /**
   * A charge point gone offline: every connector id (above 0) it has reported goes Offline (OCPI
   * UNKNOWN) at `now`, in one statement however many ids the charger chose, and only while no
   * connection holds it (one that came back first has its own statuses to report).
   */
  async connectorsOffline(q: Queryable, orgId: string, cpId: string, now: Date): Promise<void> {
    await q.query(
      `insert into hub_connector_status (org_id, charge_point_id, connector_id, status, ocpi_status, error_code, ts, received_at)
       select $1, $2, c.connector_id, 'Offline', 'UNKNOWN', null, $3, $3
         from (select distinct connector_id from hub_connector_status where org_id=$1 and charge_point_id=$2 and connector_id > 0) c
        where not exists (select 1 from hub_charge_points where org_id=$1 and charge_point_id=$2 and connected_instance is not null)
        order by c.connector_id`,
      [orgId, cpId, now],
    );
  },
  /** Status rows of these charge points from `from` to `to`, plus the last row of each connector before `from`; by connector then time. */
  async statusHistory(q: Queryable, orgId: string, cpIds: string[], from: Date, to: Date): Promise<StatusRow[]> {
    if (!cpIds.length) return [];
    const r = await q.query<StatusRow>(
      `(select distinct on (charge_point_id, connector_id) charge_point_id, connector_id, status, ocpi_status, error_code, ts
          from hub_connector_status where org_id=$1 and charge_point_id = any($2) and ts < $3
          order by charge_point_id, connector_id, ts desc, seq desc)
       union all
       (select charge_point_id, connector_id, status, ocpi_status, error_code, ts
          from hub_connector_status where org_id=$1 and charge_point_id = any($2) and ts >= $3 and ts < $4)
       order by charge_point_id, connector_id, ts`,
      [orgId, cpIds, from, to],
    );
    return r.rows;
  },
  /** The newest status of each connector of these charge points. */
  async latestStatus(q: Queryable, orgId: string, cpIds: string[]): Promise<StatusRow[]> {
    if (!cpIds.length) return [];
    const r = await q.query<StatusRow>(
      `select distinct on (charge_point_id, connector_id) charge_point_id, connector_id, status, ocpi_status, error_code, ts
         from hub_connector_status where org_id=$1 and charge_point_id = any($2) order by charge_point_id, connector_id, ts desc, seq desc`,
      [orgId, cpIds],
    );
    return r.rows;
  },

  // ---- price schedules --------------------------------------------------------------------------
  async insertSchedule(
    q: Queryable,
    orgId: string,
    siteId: string,
    s: Omit<ScheduleRow, 'site_id' | 'version' | 'status' | 'created_at' | 'published_at'>,
    now: Date,
  ): Promise<ScheduleRow> {
    const r = await q.query<ScheduleRow>(
      `insert into hub_price_schedules (org_id, site_id, version, status, energy_p_per_kwh, time_p_per_minute, connection_fee_p, overstay_p_per_minute, overstay_grace_minutes, vat_percent, bands, note, created_at)
       values ($1, $2, (select coalesce(max(version), 0) + 1 from hub_price_schedules where org_id=$1 and site_id=$2), 'draft', $3,$4,$5,$6,$7,$8,$9::jsonb,$10,$11)
       returning ${SCHEDULE_COLS}`,
      [
        orgId,
        siteId,
        s.energy_p_per_kwh,
        s.time_p_per_minute,
        s.connection_fee_p,
        s.overstay_p_per_minute,
        s.overstay_grace_minutes,
        s.vat_percent,
        JSON.stringify(s.bands),
        s.note,
        now,
      ],
    );
    return r.rows[0];
  },
  async schedules(q: Queryable, orgId: string, siteId: string): Promise<ScheduleRow[]> {
    const r = await q.query<ScheduleRow>(`select ${SCHEDULE_COLS} from hub_price_schedules where org_id=$1 and site_id=$2 order by version desc`, [
      orgId,
      siteId,
    ]);
    return r.rows;
  },
  async schedule(q: Queryable, orgId: string, siteId: string, version: number, forUpdate = false): Promise<ScheduleRow | null> {
    const r = await q.query<ScheduleRow>(
      `select ${SCHEDULE_COLS} from hub_price_schedules where org_id=$1 and site_id=$2 and version=$3${forUpdate ? ' for update' : ''}`,
      [orgId, siteId, version],
    );
    return r.rows[0] ?? null;
  },
  async publish(q: Queryable, orgId: string, siteId: string, version: number, now: Date): Promise<ScheduleRow> {
    const r = await q.query<ScheduleRow>(
      `update hub_price_schedules set status='published', published_at=$4 where org_id=$1 and site_id=$2 and version=$3 returning ${SCHEDULE_COLS}`,
      [orgId, siteId, version, now],
    );
    return r.rows[0];
  },
  /** The schedule in force at `at`: the one published most recently at or before it. */
  async inForce(q: Queryable, orgId: string, siteId: string, at: Date): Promise<ScheduleRow | null> {
    const r = await q.query<ScheduleRow>(
      `select ${SCHEDULE_COLS} from hub_price_schedules where org_id=$1 and site_id=$2 and status='published' and published_at <= $3
        order by published_at desc, version desc limit 1`,
      [orgId, siteId, at],
    );
    return r.rows[0] ?? null;
  },

  // ---- id tokens (matched case-insensitively: OCPP's CiString) ---------------------------------
  async insertIdToken(q: Queryable, orgId: string, idToken: string, f: IdTokenFields, now: Date): Promise<IdTokenRow | null> {
    const r = await q.query<IdTokenRow>(
      `insert into hub_id_tokens (org_id, id_token, token_type, status, expires_at, group_id, note, created_at, updated_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$8) on conflict do nothing returning ${TOKEN_COLS}`,
      [orgId, idToken, f.token_type, f.status, f.expires_at, f.group_id, f.note, now],
    );
    return r.rows[0] ?? null;
  },
  async idToken(q: Queryable, orgId: string, idToken: string): Promise<IdTokenRow | null> {
    const r = await q.query<IdTokenRow>(`select ${TOKEN_COLS} from hub_id_tokens where org_id=$1 and upper(id_token)=upper($2)`, [orgId, idToken]);
    return r.rows[0] ?? null;
  },
  async updateIdToken(q: Queryable, orgId: string, idToken: string, f: IdTokenFields, now: Date): Promise<IdTokenRow | null> {
    const r = await q.query<IdTokenRow>(
      `update hub_id_tokens set token_type=$3, status=$4, expires_at=$5, group_id=$6, note=$7, updated_at=$8
       where org_id=$1 and upper(id_token)=upper($2) returning ${TOKEN_COLS}`,
      [orgId, idToken, f.token_type, f.status, f.expires_at, f.group_id, f.note, now],
    );
    return r.rows[0] ?? null;
  },
  async deleteIdToken(q: Queryable, orgId: string, idToken: string): Promise<boolean> {
    const r = await q.query('delete from hub_id_tokens where org_id=$1 and upper(id_token)=upper($2)', [orgId, idToken]);
    return (r.rowCount ?? 0) > 0;
  },
  /** A page of tokens in id order, after `after` (exclusive). */
  async idTokensPage(q: Queryable, orgId: string, after: string | undefined, limit: number): Promise<IdTokenRow[]> {
    const r = await q.query<IdTokenRow>(
      `select ${TOKEN_COLS} from hub_id_tokens where org_id=$1 and ($2::text is null or upper(id_token) > upper($2)) order by upper(id_token) limit $3`,
      [orgId, after ?? null, limit + 1],
    );
    return r.rows;
  },
  /** The tokens a local list carries: all of the organisation's (or of one group), in token order, at most `limit`. */
  async idTokensForList(q: Queryable, orgId: string, groupId: string | null, limit: number): Promise<IdTokenRow[]> {
    const r = await q.query<IdTokenRow>(
      `select ${TOKEN_COLS} from hub_id_tokens where org_id=$1 and ($2::text is null or group_id=$2) order by upper(id_token) limit $3`,
      [orgId, groupId, limit],
    );
    return r.rows;
  },
  async setLocalListVersion(q: Queryable, orgId: string, cpId: string, version: number): Promise<void> {
    await q.query('update hub_charge_points set local_list_version=$3 where org_id=$1 and charge_point_id=$2', [orgId, cpId, version]);
  },
  async freeVend(q: Queryable, orgId: string, siteId: string): Promise<boolean> {
    const r = await q.query<{ free_vend: boolean }>('select free_vend from hub_sites where org_id=$1 and site_id=$2', [orgId, siteId]);
    return r.rows[0]?.free_vend ?? false;
  },

  // ---- commands ---------------------------------------------------------------------------------
  async insertCommand(
    q: Queryable,
    orgId: string,
    c: Pick<CommandRow, 'command_id' | 'charge_point_id' | 'action' | 'parameters' | 'ocpp_version' | 'ocpp_action' | 'request' | 'created_by'> & {
      status: 'pending' | 'offline';
    },
    now: Date,
  ): Promise<CommandRow> {
    const r = await q.query<CommandRow>(
      `insert into hub_commands (org_id, command_id, charge_point_id, action, parameters, ocpp_version, ocpp_action, request, status, created_by, created_at, completed_at)
       values ($1,$2,$3,$4,$5::jsonb,$6,$7,$8::jsonb,$9,$10,$11::timestamptz,case when $9 = 'pending' then null else $11::timestamptz end) returning ${COMMAND_COLS}`,
      [
        orgId,
        c.command_id,
        c.charge_point_id,
        c.action,
        JSON.stringify(c.parameters),
        c.ocpp_version,
        c.ocpp_action,
        c.request === null ? null : JSON.stringify(c.request),
        c.status,
        c.created_by,
        now,
      ],
    );
    return r.rows[0];
  },
  /**
   * The `change-configuration` commands `createdBy` sent this charger since `since`, newest first
   * (their parameters, status and time): what the boot's aligned metering was already asked.
   */
  async recentSettings(q: Queryable, orgId: string, cpId: string, createdBy: string, since: Date) {
    const r = await q.query<{ parameters: { key?: unknown; value?: unknown }; status: string; created_at: Date }>(
      `select parameters, status, created_at from hub_commands
       where org_id = $1 and charge_point_id = $2 and created_at > $3 and created_by = $4 and action = 'change-configuration'
       order by created_at desc limit 50`,
      [orgId, cpId, since, createdBy],
    );
    return r.rows.map((x) => ({ ...x, created_at: new Date(x.created_at) }));
  },
  /**
   * Commands of every organisation still `pending` though sent before `before`: their outcome was
   * never recorded (decision 0437). Stored as `failed` with `error`; answers how many.
   */
  async failStalePending(q: Queryable, before: Date, error: string, now: Date): Promise<number> {
    const r = await q.query("update hub_commands set status='failed', error=$2, completed_at=$3 where status='pending' and created_at < $1", [
      before,
      error,
      now,
    ]);
    return r.rowCount ?? 0;
  },
  async completeCommand(
    q: Queryable,
    orgId: string,
    commandId: string,
    o: { status: CommandStatus; response: Record<string, unknown> | null; error: string | null },
    now: Date,
  ): Promise<CommandRow> {
    const r = await q.query<CommandRow>(
      `update hub_commands set status=$3, response=$4::jsonb, error=$5, completed_at=$6 where org_id=$1 and command_id=$2 returning ${COMMAND_COLS}`,
      [orgId, commandId, o.status, o.response === null ? null : JSON.stringify(o.response), o.error, now],
    );
    return r.rows[0];
  },
  async command(q: Queryable, orgId: string, commandId: string): Promise<CommandRow | null> {
    const r = await q.query<CommandRow>(`select ${COMMAND_COLS} from hub_commands where org_id=$1 and command_id=$2`, [orgId, commandId]);
    return r.rows[0] ?? null;
  },
  /** A charge point's commands, newest first, before the position (created_at text, id). */
  async commandsPage(
    q: Queryable,
    orgId: string,
    cpId: string,
    before: { t: string; id: string } | undefined,
    limit: number,
  ): Promise<(CommandRow & { pos: string })[]> {
    const r = await q.query<CommandRow & { pos: string }>(
      `select ${COMMAND_COLS}, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as pos from hub_commands
       where org_id=$1 and charge_point_id=$2 and ($3::text is null or (to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), command_id) < ($3, $4))
       order by created_at desc, command_id desc limit $5`,
      [orgId, cpId, before?.t ?? null, before?.id ?? null, limit + 1],
    );
    return r.rows;
  },

  // ---- transactions -----------------------------------------------------------------------------
  async nextOcppTransactionId(q: Queryable): Promise<number> {
    const r = await q.query<{ id: string }>(`select nextval('hub_ocpp_transaction_seq')::text as id`);
    return Number(r.rows[0].id);
  },
  async insertTransaction(
    q: Queryable,
    orgId: string,
    t: Omit<TransactionRow, 'stopped_at' | 'meter_stop_wh' | 'stop_reason' | 'last_meter_at' | 'energy_last_increase_at'> & { meter_start_known: boolean },
    now: Date,
  ): Promise<boolean> {
    const r = await q.query(
      `insert into hub_transactions (org_id, transaction_id, site_id, charge_point_id, connector_id, ocpp_transaction_id, ocpp_version, id_tag, started_at, meter_start_wh, meter_start_known, last_meter_wh, last_meter_at, schedule_version, created_at, meter_anomalies, authorisation, id_token_status)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$10,$9,$12,$13,$14::jsonb,$15,$16) on conflict do nothing`,
      [
        orgId,
        t.transaction_id,
        t.site_id,
        t.charge_point_id,
        t.connector_id,
        t.ocpp_transaction_id,
        t.ocpp_version,
        t.id_tag,
        t.started_at,
        t.meter_start_wh,
        t.meter_start_known,
        t.schedule_version,
        now,
        JSON.stringify(t.meter_anomalies),
        t.authorisation,
        t.id_token_status,
      ],
    );
    return (r.rowCount ?? 0) > 0;
  },
  async transactionByOcpp(q: Queryable, orgId: string, cpId: string, ocppId: string): Promise<TransactionRow | null> {
    const r = await q.query<TransactionRow>(`select ${TX_COLS} from hub_transactions where org_id=$1 and charge_point_id=$2 and ocpp_transaction_id=$3`, [
      orgId,
      cpId,
      ocppId,
    ]);
    return r.rows[0] ?? null;
  },
  async transaction(q: Queryable, orgId: string, txId: string): Promise<TransactionRow | null> {
    const r = await q.query<TransactionRow>(`select ${TX_COLS} from hub_transactions where org_id=$1 and transaction_id=$2`, [orgId, txId]);
    return r.rows[0] ?? null;
  },
  /** Open transactions at a site (no stop yet). */
  async openTransactions(q: Queryable, orgId: string, siteId: string): Promise<TransactionRow[]> {
    const r = await q.query<TransactionRow>(
      `select ${TX_COLS} from hub_transactions where org_id=$1 and site_id=$2 and stopped_at is null order by started_at, transaction_id`,
      [orgId, siteId],
    );
    return r.rows;
  },
  async transactionsPage(
    q: Queryable,
    orgId: string,
    siteId: string,
    before: { t: string; id: string } | undefined,
    limit: number,
  ): Promise<(TransactionRow & { pos: string })[]> {
    const r = await q.query<TransactionRow & { pos: string }>(
      `select ${TX_COLS}, to_char(started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as pos from hub_transactions
        where org_id=$1 and site_id=$2 and ($3::text is null or (to_char(started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), transaction_id) < ($3, $4))
        order by started_at desc, transaction_id desc limit $5`,
      [orgId, siteId, before?.t ?? null, before?.id ?? null, limit + 1],
    );
    return r.rows;
  },
  /** A register sample: stored once per instant; the transaction's last reading moves forward only. */
  async sample(q: Queryable, orgId: string, txId: string, ts: Date, wh: number): Promise<void> {
    // One statement: the sample, and the transaction's last reading (moved forward only).
    await q.query(
      `with ins as (insert into hub_meter_samples (org_id, transaction_id, ts, wh) values ($1,$2,$3,$4) on conflict do nothing)
       update hub_transactions set
          energy_last_increase_at = case when meter_start_known and $4::bigint > coalesce(last_meter_wh, meter_start_wh) then $3 else energy_last_increase_at end,
          meter_start_wh = case when meter_start_known then meter_start_wh else $4::bigint end,
          last_meter_wh = case when meter_start_known then greatest(coalesce(last_meter_wh, meter_start_wh), $4::bigint) else $4::bigint end,
          last_meter_at = greatest(last_meter_at, $3),
          meter_start_known = true
        where org_id=$1 and transaction_id=$2`,
      [orgId, txId, ts, wh],
    );
  },
  /**
   * The judging state of these transactions (rated power from their charge point), locked for the
   * flush that judges and writes their samples. Rows name their own organisation.
   */
  async meterStates(q: Queryable, keys: readonly { orgId: string; txId: string }[]): Promise<MeterStateRow[]> {
    if (!keys.length) return [];
    const r = await q.query<MeterStateRow>(
      `select t.org_id, t.transaction_id, t.started_at, t.stopped_at, t.meter_start_known, t.meter_start_wh::text as start_wh, coalesce(t.last_meter_wh, t.meter_start_wh)::text as last_wh,
              t.last_meter_at, cp.max_power_kw::text as max_power_kw, t.meter_anomalies
         from hub_transactions t
         left join hub_charge_points cp on cp.org_id = t.org_id and cp.charge_point_id = t.charge_point_id
        where (t.org_id, t.transaction_id) in (select * from unnest($1::text[], $2::text[]))
        order by t.org_id, t.transaction_id
        for update of t`,
      [keys.map((k) => k.orgId), keys.map((k) => k.txId)],
    );
    return r.rows;
  },
  /** Rated power (kW) of these charge points, keyed `${org}/${cp}`. */
  async ratedPower(q: Queryable, keys: readonly { orgId: string; cpId: string }[]): Promise<Map<string, number>> {
    if (!keys.length) return new Map();
    const r = await q.query<{ org_id: string; charge_point_id: string; kw: string }>(
      `select org_id, charge_point_id, max_power_kw::text as kw from hub_charge_points where (org_id, charge_point_id) in (select * from unnest($1::text[], $2::text[]))`,
      [keys.map((k) => k.orgId), keys.map((k) => k.cpId)],
    );
    return new Map(r.rows.map((x) => [`${x.org_id}/${x.charge_point_id}`, Number(x.kw)]));
  },
  /**
   * Judged register samples: accepted ones (flag null) and flagged ones (flag: the reason), one row per
   * instant. An accepted sample replaces a flagged one at its instant (it is later than every accepted
   * one, so nothing accepted is there).
   */
  async insertSamples(q: Queryable, rows: readonly { orgId: string; txId: string; ts: Date; wh: number; flag: string | null }[]): Promise<void> {
    if (!rows.length) return;
    await q.query(
      `insert into hub_meter_samples (org_id, transaction_id, ts, wh, flag)
       select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[], $5::text[])
       on conflict (org_id, transaction_id, ts) do update set wh = excluded.wh, flag = null
        where hub_meter_samples.flag is not null and excluded.flag is null`,
      [rows.map((r) => r.orgId), rows.map((r) => r.txId), rows.map((r) => r.ts), rows.map((r) => r.wh), rows.map((r) => r.flag)],
    );
  },
  /** A judged flush's outcome per transaction: its latest accepted reading and its anomaly counts. */
  async meterMoved(
    q: Queryable,
    rows: readonly {
      orgId: string;
      txId: string;
      known: boolean;
      startWh: number;
      lastWh: number;
      lastAt: Date;
      riseAt: Date | null;
      anomalies: AnomalyCounts;
    }[],
  ): Promise<void> {
    if (!rows.length) return;
    await q.query(
      `with v as (select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::timestamptz[], $6::timestamptz[], $7::jsonb[], $8::boolean[])
                    as v(org_id, transaction_id, start_wh, last_wh, last_at, rise_at, anomalies, known))
       update hub_transactions t set
          meter_start_wh = v.start_wh,
          meter_start_known = v.known,
          last_meter_wh = v.last_wh,
          last_meter_at = v.last_at,
          energy_last_increase_at = coalesce(v.rise_at, t.energy_last_increase_at),
          meter_anomalies = v.anomalies
        from v where t.org_id = v.org_id and t.transaction_id = v.transaction_id`,
      [
        rows.map((r) => r.orgId),
        rows.map((r) => r.txId),
        rows.map((r) => r.startWh),
        rows.map((r) => r.lastWh),
        rows.map((r) => r.lastAt),
        rows.map((r) => r.riseAt),
        rows.map((r) => JSON.stringify(r.anomalies)),
        rows.map((r) => r.known),
      ],
    );
  },
  /** Accepted register samples of a transaction within [from, to], in time order (what is billed). */
  async billedSamples(q: Queryable, orgId: string, txId: string, from: Date, to: Date): Promise<{ ts: Date; wh: string }[]> {
    const r = await q.query<{ ts: Date; wh: string }>(
      'select ts, wh::text from hub_meter_samples where org_id=$1 and transaction_id=$2 and flag is null and ts >= $3 and ts <= $4 order by ts',
      [orgId, txId, from, to],
    );
    return r.rows;
  },
  /** The token a transaction begun without one was authorised with later (2.0.1: in an event after Started); a transaction that has a token keeps it. */
  async authoriseLater(q: Queryable, orgId: string, txId: string, idTag: string, authorisation: 'id_token' | 'free_vend', status: string): Promise<boolean> {
    const r = await q.query(
      `update hub_transactions set id_tag = $3, authorisation = $4, id_token_status = $5
        where org_id=$1 and transaction_id=$2 and id_tag is null`,
      [orgId, txId, idTag, authorisation, status],
    );
    return (r.rowCount ?? 0) > 0;
  },

  /**
   * Stops a transaction: its stop reading is its latest accepted one (the stop's own reading was judged
   * as a sample), and it stops no earlier than that reading (a charger that stamps its stop before
   * samples it sent earlier keeps them in the session) unless the reading is later than `latest` (a
   * row stored before the rules, decision 0275).
   */
  async stop(q: Queryable, orgId: string, txId: string, at: Date, reason: string | null, latest: Date): Promise<boolean> {
    const r = await q.query(
      `update hub_transactions set
          stopped_at = case when last_meter_at > $3 and last_meter_at <= $5 then last_meter_at else $3 end,
          meter_stop_wh = coalesce(last_meter_wh, meter_start_wh), stop_reason = $4
        where org_id=$1 and transaction_id=$2 and stopped_at is null`,
      [orgId, txId, at, reason, latest],
    );
    return (r.rowCount ?? 0) > 0;
  },
};

// ---- Export (the export module asks through HUB_EXPORTABLE) ----------
/** Charging transactions for the organisation's export (decision 0206): rows as JSON text from the database. */
export const hubExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'hub.transactions',
    description: 'Charging transactions: site, charge point, connector, OCPP ids, id tag, start and stop, meter readings, stop reason and schedule.',
    table: 'hub_transactions',
    columns: [
      'transaction_id',
      'site_id',
      'charge_point_id',
      'connector_id',
      'ocpp_transaction_id',
      'ocpp_version',
      'id_tag',
      'started_at:iso',
      'stopped_at:iso',
      'meter_start_wh:text',
      'meter_start_known',
      'meter_stop_wh:text',
      'last_meter_wh:text',
      'last_meter_at:iso',
      'energy_last_increase_at:iso',
      'stop_reason',
      'schedule_version',
      'created_at:iso',
      'meter_anomalies',
      'authorisation',
      'id_token_status',
    ],
    period: 'started_at',
    key: ['transaction_id:text'],
  }),
];
