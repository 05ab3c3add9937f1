// Connect SQL. Every function takes the organisation id first and filters on it, except the
// watchdog's walk over gateway rows (platform background work, across organisations).
import { firstRow, type Queryable } from '../../infra/db/index.ts';
import type { Proposal, Slot } from './templates.ts';
import type { Entity, MappingEntry } from './home-automation.ts';

// ---- Templates -------------------------------------------------------------------------------

export interface TemplateRow {
  template_id: string;
  name: string;
  description: string;
  slots: Slot[];
  created_at: Date;
}

export const templateStore = {
  async list(q: Queryable, orgId: string): Promise<TemplateRow[]> {
    return (
      await q.query<TemplateRow>('select template_id, name, description, slots, created_at from connect_templates where org_id = $1 order by template_id', [
        orgId,
      ])
    ).rows;
  },
  async get(q: Queryable, orgId: string, id: string): Promise<TemplateRow | null> {
    return firstRow<TemplateRow>(q, 'select template_id, name, description, slots, created_at from connect_templates where org_id = $1 and template_id = $2', [
      orgId,
      id,
    ]);
  },
  /** False when the id is taken. */
  async insert(q: Queryable, orgId: string, t: Omit<TemplateRow, 'created_at'>, by: string | null, now: Date): Promise<boolean> {
    const r = await q.query(
      `insert into connect_templates (org_id, template_id, name, description, slots, created_by, created_at)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
      [orgId, t.template_id, t.name, t.description, JSON.stringify(t.slots), by, now],
    );
    return (r.rowCount ?? 0) > 0;
  },
};

// ---- Onboarding runs -------------------------------------------------------------------------

/** A slot of a confirmed onboarding run as stored: the device mapped to it, proposed or edited. */
export interface ConfirmedSlot {
  slot: string;
  asset_id: string;
  device_id: string | null;
  source: 'proposed' | 'edited';
  confidence: number | null;
}

export interface RunRow {
  seq: string;
  run_id: string;
  site_id: string;
  template_id: string;
  template: Record<string, unknown>;
  slots: { slot: string; asset_id: string }[];
  proposal: Proposal;
  mapping: ConfirmedSlot[] | null;
  started_at: Date;
  started_by: string | null;
  confirmed_at: Date | null;
  confirmed_by: string | null;
  elapsed_ms: string | number | null;
  /** started_at as exact text, for cursors. */
  pos: string;
}

const RUN_COLS = `seq::text as seq, run_id, site_id, template_id, template, slots, proposal, mapping, started_at, started_by,
  confirmed_at, confirmed_by, elapsed_ms, to_char(started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as pos`;

export const runStore = {
  async insert(
    q: Queryable,
    orgId: string,
    r: { run_id: string; site_id: string; template_id: string; template: object; slots: object; proposal: object; started_by: string | null },
    now: Date,
  ) {
    await q.query(
      `insert into connect_onboarding_runs (org_id, run_id, site_id, template_id, template, slots, proposal, started_at, started_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [orgId, r.run_id, r.site_id, r.template_id, JSON.stringify(r.template), JSON.stringify(r.slots), JSON.stringify(r.proposal), now, r.started_by],
    );
  },
  async latestForSite(q: Queryable, orgId: string, siteId: string, opts: { forUpdate?: boolean } = {}): Promise<RunRow | null> {
    const r = await q.query<RunRow>(
      `select ${RUN_COLS} from connect_onboarding_runs r where r.org_id = $1 and r.site_id = $2 order by r.seq desc limit 1${opts.forUpdate ? ' for update' : ''}`,
      [orgId, siteId],
    );
    return r.rows[0] ?? null;
  },
  async confirm(q: Queryable, orgId: string, runId: string, mapping: ConfirmedSlot[], by: string | null, now: Date): Promise<RunRow | null> {
    const r = await q.query<RunRow>(
      `update connect_onboarding_runs set mapping = $3, confirmed_at = $4, confirmed_by = $5,
         elapsed_ms = (extract(epoch from ($4::timestamptz - started_at)) * 1000)::bigint
       where org_id = $1 and run_id = $2 and confirmed_at is null returning ${RUN_COLS}`,
      [orgId, runId, JSON.stringify(mapping), now, by],
    );
    return r.rows[0] ?? null;
  },
  /** Newest first (started_at, then run id), after a cursor position. */
  async page(q: Queryable, orgId: string, opts: { before?: { t: string; id: string }; siteId?: string; limit: number }): Promise<RunRow[]> {
    const params: unknown[] = [orgId];
    const where = ['org_id = $1'];
    if (opts.siteId) {
      params.push(opts.siteId);
      where.push(`site_id = $${params.length}`);
    }
    if (opts.before) {
      params.push(opts.before.t, opts.before.id);
      where.push(`(started_at, run_id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(opts.limit + 1);
    return (
      await q.query<RunRow>(
        `select ${RUN_COLS} from connect_onboarding_runs where ${where.join(' and ')} order by started_at desc, run_id desc limit $${params.length}`,
        params,
      )
    ).rows;
  },
  /** Time to confirm across the organisation's confirmed runs: count, median and p90 (nearest rank), in ms. */
  async timings(q: Queryable, orgId: string): Promise<{ runs: number; confirmed: number; elapsed: number[] }> {
    const r = await q.query<{ runs: number; confirmed: number }>(
      `select count(*)::int as runs, count(confirmed_at)::int as confirmed from connect_onboarding_runs where org_id = $1`,
      [orgId],
    );
    const e = await q.query<{ ms: string }>(
      `select elapsed_ms::text as ms from connect_onboarding_runs where org_id = $1 and elapsed_ms is not null order by elapsed_ms`,
      [orgId],
    );
    return { runs: r.rows[0].runs, confirmed: r.rows[0].confirmed, elapsed: e.rows.map((x) => Number(x.ms)) };
  },
};

// ---- Gateways --------------------------------------------------------------------------------

export interface GatewayRow {
  org_id: string;
  site_id: string;
  last_heartbeat_at: Date | null;
  heartbeat_count: string | number;
  firmware: string | null;
  buffer_depth: number | null;
  gateway_id: string | null;
  late_after_s: number;
  silent_after_s: number;
  state: 'online' | 'late' | 'silent';
  state_since: Date;
  checked_at: Date;
  dropped_at: Date | null;
  updated_at: Date;
}

const GW_COLS = `org_id, site_id, last_heartbeat_at, heartbeat_count, firmware, buffer_depth, gateway_id, late_after_s, silent_after_s,
  state, state_since, checked_at, dropped_at, updated_at`;

export const gatewayStore = {
  async get(q: Queryable, orgId: string, siteId: string, opts: { forUpdate?: boolean } = {}): Promise<GatewayRow | null> {
    return firstRow<GatewayRow>(q, `select ${GW_COLS} from connect_gateways where org_id = $1 and site_id = $2${opts.forUpdate ? ' for update' : ''}`, [
      orgId,
      siteId,
    ]);
  },
  /** Makes the row when absent (state silent, never heard); returns it locked. */
  async ensure(q: Queryable, orgId: string, siteId: string, d: { late: number; silent: number }, now: Date): Promise<GatewayRow> {
    await q.query(
      `insert into connect_gateways (org_id, site_id, late_after_s, silent_after_s, state, state_since, checked_at, updated_at)
       values ($1, $2, $3, $4, 'silent', $5, $5, $5) on conflict do nothing`,
      [orgId, siteId, d.late, d.silent, now],
    );
    return (await this.get(q, orgId, siteId, { forUpdate: true }))!;
  },
  async heartbeat(
    q: Queryable,
    orgId: string,
    siteId: string,
    h: { at: Date; firmware?: string; buffer_depth?: number; gateway_id?: string; late?: number; silent?: number },
    now: Date,
  ) {
    await q.query(
      `update connect_gateways set last_heartbeat_at = $3, heartbeat_count = heartbeat_count + 1,
         firmware = coalesce($4, firmware), buffer_depth = case when $5::int is null then buffer_depth else $5::int end,
         gateway_id = coalesce($6, gateway_id), late_after_s = coalesce($7, late_after_s), silent_after_s = coalesce($8, silent_after_s),
         updated_at = $9
       where org_id = $1 and site_id = $2`,
      [orgId, siteId, h.at, h.firmware ?? null, h.buffer_depth ?? null, h.gateway_id ?? null, h.late ?? null, h.silent ?? null, now],
    );
  },
  async setState(q: Queryable, orgId: string, siteId: string, state: string, changed: boolean, now: Date) {
    await q.query(
      `update connect_gateways set state = $3, state_since = case when $4 then $5 else state_since end, checked_at = $5, updated_at = $5
       where org_id = $1 and site_id = $2`,
      [orgId, siteId, state, changed, now],
    );
  },
  async setDropped(q: Queryable, orgId: string, siteId: string, at: Date | null, now: Date) {
    await q.query('update connect_gateways set dropped_at = $3, updated_at = $4 where org_id = $1 and site_id = $2', [orgId, siteId, at, now]);
  },
  /** Every gateway row's organisation and site (the watchdog's walk; realm filtered by the caller). */
  async all(q: Queryable): Promise<{ org_id: string; site_id: string }[]> {
    return (await q.query<{ org_id: string; site_id: string }>('select org_id, site_id from connect_gateways order by org_id, site_id')).rows;
  },
};

// ---- Buffer replay ---------------------------------------------------------------------------

export interface BufferRow {
  device_id: string;
  sequence: string;
  site_id: string;
  ts: string;
  anomalies: string[];
  replay_id: string;
  received_at: Date;
}

export const bufferStore = {
  /**
   * Records a replay id at the site with the hash of its records. Returns null when this call
   * recorded it, else the hash it was first recorded with (a concurrent replay with the same id
   * waits for the first's commit on the primary key, then reads it).
   */
  async claimReplayId(q: Queryable, orgId: string, siteId: string, replayId: string, recordsHash: string, now: Date): Promise<string | null> {
    const ins = await q.query(
      `insert into connect_buffer_replays (org_id, site_id, replay_id, records_hash, first_at) values ($1, $2, $3, $4, $5)
       on conflict (org_id, site_id, replay_id) do nothing returning replay_id`,
      [orgId, siteId, replayId, recordsHash, now],
    );
    if (ins.rows.length) return null;
    const r = await q.query<{ records_hash: string }>('select records_hash from connect_buffer_replays where org_id = $1 and site_id = $2 and replay_id = $3', [
      orgId,
      siteId,
      replayId,
    ]);
    return r.rows[0]?.records_hash ?? null;
  },
  /**
   * Claims (device, sequence) pairs of the site for this replay; returns the pairs this call
   * claimed. A pair already stored (by an earlier or a concurrent replay) is not returned: the
   * primary key decides.
   */
  async claim(
    q: Queryable,
    orgId: string,
    siteId: string,
    replayId: string,
    rows: { device_id: string; sequence: number; ts: string; anomalies: string[]; record_hash: string }[],
    now: Date,
  ): Promise<Set<string>> {
    if (!rows.length) return new Set();
    const r = await q.query<{ device_id: string; sequence: string }>(
      `insert into connect_buffer_rows (org_id, device_id, sequence, site_id, ts, anomalies, replay_id, received_at, record_hash)
       select $1, u.device_id, u.seq, $2, u.ts, coalesce(string_to_array(u.anomalies, ','), '{}'), $3, $4, u.record_hash
       from unnest($5::text[], $6::bigint[], $7::timestamptz[], $8::text[], $9::text[]) with ordinality as u(device_id, seq, ts, anomalies, record_hash, ord)
       order by u.ord
       on conflict (org_id, site_id, device_id, sequence) do nothing
       returning device_id, sequence::text as sequence`,
      [
        orgId,
        siteId,
        replayId,
        now,
        rows.map((x) => x.device_id),
        rows.map((x) => String(x.sequence)),
        rows.map((x) => x.ts),
        rows.map((x) => (x.anomalies.length ? x.anomalies.join(',') : null)),
        rows.map((x) => x.record_hash),
      ],
    );
    return new Set(r.rows.map((x) => `${x.device_id}\u0000${x.sequence}`));
  },
  /** The stored record hash (null for rows claimed before hashes were kept) and replay of pairs of the site. */
  async storedClaims(q: Queryable, orgId: string, siteId: string, pairs: { device_id: string; sequence: number }[]) {
    const out = new Map<string, { record_hash: string | null; replay_id: string }>();
    if (!pairs.length) return out;
    const r = await q.query<{ device_id: string; sequence: string; record_hash: string | null; replay_id: string }>(
      `select b.device_id, b.sequence::text as sequence, b.record_hash, b.replay_id
       from unnest($3::text[], $4::bigint[]) as u(device_id, seq)
       join connect_buffer_rows b on b.org_id = $1 and b.site_id = $2 and b.device_id = u.device_id and b.sequence = u.seq`,
      [orgId, siteId, pairs.map((p) => p.device_id), pairs.map((p) => String(p.sequence))],
    );
    for (const x of r.rows) out.set(`${x.device_id}\u0000${x.sequence}`, { record_hash: x.record_hash, replay_id: x.replay_id });
    return out;
  },
  /** Gaps in each device's stored sequences at the site (missing runs between stored numbers). */
  async gaps(q: Queryable, orgId: string, siteId: string, devices?: string[], limit = 100) {
    const params: unknown[] = [orgId, siteId];
    let filter = '';
    if (devices) {
      params.push(devices);
      filter = ` and device_id = any($3::text[])`;
    }
    params.push(limit);
    return (
      await q.query<{ device_id: string; from_seq: string; to_seq: string; missing: string }>(
        `select device_id, (sequence + 1)::text as from_seq, (next - 1)::text as to_seq, (next - sequence - 1)::text as missing
         from (select device_id, sequence, lead(sequence) over (partition by device_id order by sequence) as next
               from connect_buffer_rows where org_id = $1 and site_id = $2${filter}) s
         where next > sequence + 1 order by device_id, sequence limit $${params.length}`,
        params,
      )
    ).rows.map((g) => ({ device_id: g.device_id, from_sequence: Number(g.from_seq), to_sequence: Number(g.to_seq), missing: Number(g.missing) }));
  },
  async devices(q: Queryable, orgId: string, siteId: string) {
    return (
      await q.query<{ device_id: string; n: string; first_seq: string; last_seq: string; first_ts: Date; last_ts: Date }>(
        `select device_id, count(*)::text as n, min(sequence)::text as first_seq, max(sequence)::text as last_seq, min(ts) as first_ts, max(ts) as last_ts
         from connect_buffer_rows where org_id = $1 and site_id = $2 group by device_id order by device_id`,
        [orgId, siteId],
      )
    ).rows;
  },
  async maxSequence(q: Queryable, orgId: string, siteId: string, deviceId: string): Promise<number | null> {
    const r = await q.query<{ m: string | null }>(
      'select max(sequence)::text as m from connect_buffer_rows where org_id = $1 and site_id = $2 and device_id = $3',
      [orgId, siteId, deviceId],
    );
    return r.rows[0]?.m === null || r.rows[0]?.m === undefined ? null : Number(r.rows[0].m);
  },
  /** Device and sequence order, after a (device, sequence) position. */
  async page(q: Queryable, orgId: string, siteId: string, opts: { after?: { device: string; seq: string }; deviceId?: string; limit: number }) {
    const params: unknown[] = [orgId, siteId];
    const where = ['org_id = $1', 'site_id = $2'];
    if (opts.deviceId) {
      params.push(opts.deviceId);
      where.push(`device_id = $${params.length}`);
    }
    if (opts.after) {
      params.push(opts.after.device, opts.after.seq);
      where.push(`(device_id, sequence) > ($${params.length - 1}, $${params.length}::bigint)`);
    }
    params.push(opts.limit + 1);
    return (
      await q.query<BufferRow>(
        `select device_id, sequence::text as sequence, site_id, to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ts, anomalies, replay_id, received_at
         from connect_buffer_rows b where ${where.join(' and ')} order by b.device_id, b.sequence limit $${params.length}`,
        params,
      )
    ).rows;
  },
  async addState(
    q: Queryable,
    orgId: string,
    siteId: string,
    d: { received: number; stored: number; duplicates: number; rejected: number; remaining?: number },
    now: Date,
  ) {
    await q.query(
      `insert into connect_buffer_state as s (org_id, site_id, replays, received, stored, duplicates, rejected, remaining, remaining_reported_at, first_replay_at, last_replay_at)
       values ($1, $2, 1, $3, $4, $5, $6, $7, case when $7::int is null then null else $8::timestamptz end, $8, $8)
       on conflict (org_id, site_id) do update set replays = s.replays + 1, received = s.received + excluded.received,
         stored = s.stored + excluded.stored, duplicates = s.duplicates + excluded.duplicates, rejected = s.rejected + excluded.rejected,
         remaining = case when $7::int is null then s.remaining else $7::int end,
         remaining_reported_at = case when $7::int is null then s.remaining_reported_at else $8::timestamptz end,
         last_replay_at = $8`,
      [orgId, siteId, d.received, d.stored, d.duplicates, d.rejected, d.remaining ?? null, now],
    );
  },
  async state(q: Queryable, orgId: string, siteId: string) {
    return firstRow<{
      replays: string;
      received: string;
      stored: string;
      duplicates: string;
      rejected: string;
      remaining: number | null;
      remaining_reported_at: Date | null;
      first_replay_at: Date | null;
      last_replay_at: Date | null;
    }>(
      q,
      `select replays::text, received::text, stored::text, duplicates::text, rejected::text, remaining, remaining_reported_at, first_replay_at, last_replay_at
         from connect_buffer_state where org_id = $1 and site_id = $2`,
      [orgId, siteId],
    );
  },
};

// ---- Home-automation connector ---------------------------------------------------------------

export interface HaSiteRow {
  site_id: string;
  entities: Entity[];
  reported_at: Date | null;
  mapping: MappingEntry[];
  mapping_status: 'none' | 'proposed' | 'confirmed' | 'withdrawn';
  mapping_confirmed_at: Date | null;
  mapping_confirmed_by: string | null;
  health: Record<string, unknown> | null;
  health_at: Date | null;
  last_telemetry_at: Date | null;
  readings_received: string;
  readings_stored: string;
  readings_unmapped: string;
  readings_rejected: string;
  created_at: Date;
  updated_at: Date;
}

const HA_COLS = `site_id, entities, reported_at, mapping, mapping_status, mapping_confirmed_at, mapping_confirmed_by, health, health_at,
  last_telemetry_at, readings_received::text, readings_stored::text, readings_unmapped::text, readings_rejected::text, created_at, updated_at`;

export const haStore = {
  async list(q: Queryable, orgId: string): Promise<HaSiteRow[]> {
    return (await q.query<HaSiteRow>(`select ${HA_COLS} from connect_ha_sites where org_id = $1 order by site_id`, [orgId])).rows;
  },
  async get(q: Queryable, orgId: string, siteId: string, opts: { forUpdate?: boolean } = {}): Promise<HaSiteRow | null> {
    return firstRow<HaSiteRow>(q, `select ${HA_COLS} from connect_ha_sites where org_id = $1 and site_id = $2${opts.forUpdate ? ' for update' : ''}`, [
      orgId,
      siteId,
    ]);
  },
  async ensure(q: Queryable, orgId: string, siteId: string, now: Date): Promise<HaSiteRow> {
    await q.query(`insert into connect_ha_sites (org_id, site_id, created_at, updated_at) values ($1, $2, $3, $3) on conflict do nothing`, [
      orgId,
      siteId,
      now,
    ]);
    return (await this.get(q, orgId, siteId, { forUpdate: true }))!;
  },
  async setReport(q: Queryable, orgId: string, siteId: string, entities: object[], mapping: object[] | null, now: Date) {
    await q.query(
      `update connect_ha_sites set entities = $3, reported_at = $4, updated_at = $4,
         mapping = case when $5::jsonb is null then mapping else $5::jsonb end,
         mapping_status = case when $5::jsonb is null then mapping_status else 'proposed' end
       where org_id = $1 and site_id = $2`,
      [orgId, siteId, JSON.stringify(entities), now, mapping ? JSON.stringify(mapping) : null],
    );
  },
  async setMapping(q: Queryable, orgId: string, siteId: string, mapping: object[], status: string, by: string | null, now: Date) {
    await q.query(
      `update connect_ha_sites set mapping = $3, mapping_status = $4, mapping_confirmed_at = case when $4 = 'confirmed' then $6::timestamptz else null end,
         mapping_confirmed_by = case when $4 = 'confirmed' then $5 else null end, updated_at = $6
       where org_id = $1 and site_id = $2`,
      [orgId, siteId, JSON.stringify(mapping), status, by, now],
    );
  },
  async addTelemetry(
    q: Queryable,
    orgId: string,
    siteId: string,
    d: { received: number; stored: number; unmapped: number; rejected: number; health?: object },
    now: Date,
  ) {
    await q.query(
      `update connect_ha_sites set last_telemetry_at = $3, readings_received = readings_received + $4, readings_stored = readings_stored + $5,
         readings_unmapped = readings_unmapped + $6, readings_rejected = readings_rejected + $7,
         health = coalesce($8::jsonb, health), health_at = case when $8::jsonb is null then health_at else $3 end, updated_at = $3
       where org_id = $1 and site_id = $2`,
      [orgId, siteId, now, d.received, d.stored, d.unmapped, d.rejected, d.health ? JSON.stringify(d.health) : null],
    );
  },
};
