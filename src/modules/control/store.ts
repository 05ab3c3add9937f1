// SQL of the control module: its tables only, every query filtered on org_id (the loop's one
// cross-organisation read, `loopSites`, runs on the background store).
import { firstRow, type Queryable } from '../../infra/db/index.ts';
import type { Connection, DeviceState, SiteState } from './model.ts';

const ms = (t: Date | string | null) => (t === null ? null : new Date(t).getTime());
const num = (x: unknown) => (x === null || x === undefined ? null : Number(x));
const dt = (t: number | null) => (t === null ? null : new Date(t));

export interface ConfigRow {
  site_id: string;
  demo: boolean;
  export_limit_enabled: boolean;
  export_limit_kw: number | null;
  margin_kw: number;
  settle_seconds: number;
  connection: Connection | null;
  updated_at: Date;
  updated_by: string | null;
}

export const configStore = {
  async get(q: Queryable, orgId: string, siteId: string): Promise<ConfigRow | null> {
    const r = await q.query<ConfigRow>('select * from control_site_config where org_id = $1 and site_id = $2', [orgId, siteId]);
    return r.rows[0] ?? null;
  },
  async list(q: Queryable, orgId: string): Promise<ConfigRow[]> {
    return (await q.query<ConfigRow>('select * from control_site_config where org_id = $1 order by site_id', [orgId])).rows;
  },
  async put(q: Queryable, orgId: string, c: Omit<ConfigRow, 'updated_at'> & { updated_at: Date }) {
    await q.query(
      `insert into control_site_config (org_id, site_id, demo, export_limit_enabled, export_limit_kw, margin_kw, settle_seconds, connection, updated_at, updated_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       on conflict (org_id, site_id) do update set demo = excluded.demo, export_limit_enabled = excluded.export_limit_enabled,
         export_limit_kw = excluded.export_limit_kw, margin_kw = excluded.margin_kw, settle_seconds = excluded.settle_seconds,
         connection = excluded.connection, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [
        orgId,
        c.site_id,
        c.demo,
        c.export_limit_enabled,
        c.export_limit_kw,
        c.margin_kw,
        c.settle_seconds,
        c.connection ? JSON.stringify(c.connection) : null,
        c.updated_at,
        c.updated_by,
      ],
    );
  },
  /** Every demo-realm site with export limitation on, across organisations (the loop; one indexed read). */
  async loopSites(q: Queryable): Promise<{ org_id: string; site_id: string }[]> {
    return (
      await q.query<{ org_id: string; site_id: string }>(
        'select org_id, site_id from control_site_config where demo and export_limit_enabled order by org_id, site_id',
      )
    ).rows;
  },
};

/** A device's stored state: the model's, for one site, with the pending command's instant as stored. */
interface DeviceRow extends Omit<DeviceState, 'pending_at'> {
  site_id: string;
  pending_at: Date | null;
}

const deviceOf = (r: DeviceRow): DeviceState => ({
  device_id: r.device_id,
  kind: r.kind,
  behaviour: r.behaviour,
  rated_kw: Number(r.rated_kw),
  capacity_kwh: num(r.capacity_kwh),
  soc_pct: num(r.soc_pct),
  setpoint_kw: num(r.setpoint_kw),
  pending_kw: num(r.pending_kw),
  pending_at: ms(r.pending_at),
});

export const demoStore = {
  async site(q: Queryable, orgId: string, siteId: string, opts: { forUpdate?: boolean } = {}): Promise<SiteState | null> {
    const r = await q.query<{ load_kw: number; pv_available_kw: number; stepped_at: Date }>(
      `select load_kw, pv_available_kw, stepped_at from control_demo_sites where org_id = $1 and site_id = $2${opts.forUpdate ? ' for update' : ''}`,
      [orgId, siteId],
    );
    const s = r.rows[0];
    if (!s) return null;
    const d = await q.query<DeviceRow>('select * from control_demo_devices where org_id = $1 and site_id = $2 order by position', [orgId, siteId]);
    return { load_kw: Number(s.load_kw), pv_available_kw: Number(s.pv_available_kw), stepped_at: ms(s.stepped_at)!, devices: d.rows.map(deviceOf) };
  },
  async siteIds(q: Queryable, orgId: string): Promise<string[]> {
    return (await q.query<{ site_id: string }>('select site_id from control_demo_sites where org_id = $1 order by site_id', [orgId])).rows.map(
      (r) => r.site_id,
    );
  },
  async deviceSite(q: Queryable, orgId: string, deviceId: string): Promise<string | null> {
    const r = await q.query<{ site_id: string }>('select site_id from control_demo_devices where org_id = $1 and device_id = $2', [orgId, deviceId]);
    return r.rows[0]?.site_id ?? null;
  },
  async deviceTaken(q: Queryable, orgId: string, deviceIds: string[]): Promise<string[]> {
    const r = await q.query<{ device_id: string }>('select device_id from control_demo_devices where org_id = $1 and device_id = any($2::text[])', [
      orgId,
      deviceIds,
    ]);
    return r.rows.map((x) => x.device_id);
  },
  async create(q: Queryable, orgId: string, siteId: string, s: SiteState, now: Date) {
    await q.query('insert into control_demo_sites (org_id, site_id, load_kw, pv_available_kw, stepped_at, created_at) values ($1, $2, $3, $4, $5, $6)', [
      orgId,
      siteId,
      s.load_kw,
      s.pv_available_kw,
      dt(s.stepped_at),
      now,
    ]);
    let position = 0;
    for (const d of s.devices) {
      await q.query(
        `insert into control_demo_devices (org_id, device_id, site_id, kind, behaviour, rated_kw, capacity_kwh, soc_pct, setpoint_kw, pending_kw, pending_at, position)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [orgId, d.device_id, siteId, d.kind, d.behaviour, d.rated_kw, d.capacity_kwh, d.soc_pct, d.setpoint_kw, d.pending_kw, dt(d.pending_at), position++],
      );
    }
  },
  /** Writes the stepped model back (the site row must be locked by the caller). */
  async save(q: Queryable, orgId: string, siteId: string, s: SiteState) {
    await q.query('update control_demo_sites set load_kw = $3, pv_available_kw = $4, stepped_at = $5 where org_id = $1 and site_id = $2', [
      orgId,
      siteId,
      s.load_kw,
      s.pv_available_kw,
      dt(s.stepped_at),
    ]);
    for (const d of s.devices) {
      await q.query(
        `update control_demo_devices set behaviour = $3, rated_kw = $4, capacity_kwh = $5, soc_pct = $6, setpoint_kw = $7, pending_kw = $8, pending_at = $9
         where org_id = $1 and device_id = $2`,
        [orgId, d.device_id, d.behaviour, d.rated_kw, d.capacity_kwh, d.soc_pct, d.setpoint_kw, d.pending_kw, dt(d.pending_at)],
      );
    }
  },
};

export interface DecisionRow {
  decision_id: string;
  site_id: string;
  kind: string;
  rule: string;
  inputs: unknown;
  output: unknown;
  outcome: unknown;
  actor: string | null;
  created_at: Date;
  pos: string;
}
const POS = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

export const decisionStore = {
  async insert(q: Queryable, orgId: string, d: Omit<DecisionRow, 'pos'>) {
    await q.query(
      'insert into control_decisions (org_id, decision_id, site_id, kind, rule, inputs, output, outcome, actor, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [orgId, d.decision_id, d.site_id, d.kind, d.rule, JSON.stringify(d.inputs), JSON.stringify(d.output), JSON.stringify(d.outcome), d.actor, d.created_at],
    );
  },
  async get(q: Queryable, orgId: string, id: string): Promise<DecisionRow | null> {
    return firstRow<DecisionRow>(q, `select *, ${POS} as pos from control_decisions where org_id = $1 and decision_id = $2`, [orgId, id]);
  },
  async page(q: Queryable, orgId: string, f: { siteId?: string; kind?: string; before?: { t: string; id: string }; limit: number }): Promise<DecisionRow[]> {
    const p: unknown[] = [orgId];
    const w = ['org_id = $1'];
    if (f.siteId !== undefined) w.push(`site_id = $${p.push(f.siteId)}`);
    if (f.kind !== undefined) w.push(`kind = $${p.push(f.kind)}`);
    if (f.before) w.push(`(${POS}, decision_id::text) < ($${p.push(f.before.t)}, $${p.push(f.before.id)})`);
    return (
      await q.query<DecisionRow>(
        `select *, ${POS} as pos from control_decisions where ${w.join(' and ')} order by ${POS} desc, decision_id::text desc limit ${f.limit + 1}`,
        p,
      )
    ).rows;
  },
};

export interface SetpointRow {
  setpoint_id: string;
  site_id: string;
  device_id: string;
  value_kw: number;
  source: string;
  verdict: string;
  accepted: boolean | null;
  expected_kw: number | null;
  readback_kw: number | null;
  settle_seconds: number;
  commanded_at: Date;
  read_at: Date;
  reason: string;
  decision_id: string;
  actor: string | null;
}
const SP_POS = `to_char(commanded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

export const setpointStore = {
  async insert(q: Queryable, orgId: string, s: SetpointRow) {
    await q.query(
      `insert into control_setpoints (org_id, setpoint_id, site_id, device_id, value_kw, source, verdict, accepted, expected_kw, readback_kw, settle_seconds, commanded_at, read_at, reason, decision_id, actor)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        orgId,
        s.setpoint_id,
        s.site_id,
        s.device_id,
        s.value_kw,
        s.source,
        s.verdict,
        s.accepted,
        s.expected_kw,
        s.readback_kw,
        s.settle_seconds,
        s.commanded_at,
        s.read_at,
        s.reason,
        s.decision_id,
        s.actor,
      ],
    );
  },
  async page(q: Queryable, orgId: string, f: { siteId?: string; deviceId?: string; verdict?: string; before?: { t: string; id: string }; limit: number }) {
    const p: unknown[] = [orgId];
    const w = ['org_id = $1'];
    if (f.siteId !== undefined) w.push(`site_id = $${p.push(f.siteId)}`);
    if (f.deviceId !== undefined) w.push(`device_id = $${p.push(f.deviceId)}`);
    if (f.verdict !== undefined) w.push(`verdict = $${p.push(f.verdict)}`);
    if (f.before) w.push(`(${SP_POS}, setpoint_id::text) < ($${p.push(f.before.t)}, $${p.push(f.before.id)})`);
    return (
      await q.query<SetpointRow & { pos: string }>(
        `select *, ${SP_POS} as pos from control_setpoints where ${w.join(' and ')} order by ${SP_POS} desc, setpoint_id::text desc limit ${f.limit + 1}`,
        p,
      )
    ).rows;
  },
  async lastBySite(q: Queryable, orgId: string): Promise<Map<string, Date>> {
    const r = await q.query<{ site_id: string; at: Date }>(
      'select site_id, max(commanded_at) as at from control_setpoints where org_id = $1 group by site_id',
      [orgId],
    );
    return new Map(r.rows.map((x) => [x.site_id, new Date(x.at)]));
  },
};

export interface OverrideRow {
  override_id: string;
  site_id: string;
  device_id: string | null;
  reason: string;
  authority: string;
  starts_at: Date;
  expires_at: Date;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
  revoked_by: string | null;
  revoke_reason: string | null;
}
const OV_POS = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

export const overrideStore = {
  async insert(q: Queryable, orgId: string, o: OverrideRow) {
    await q.query(
      `insert into control_overrides (org_id, override_id, site_id, device_id, reason, authority, starts_at, expires_at, created_by, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [orgId, o.override_id, o.site_id, o.device_id, o.reason, o.authority, o.starts_at, o.expires_at, o.created_by, o.created_at],
    );
  },
  async get(q: Queryable, orgId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<OverrideRow | null> {
    return firstRow<OverrideRow>(q, `select * from control_overrides where org_id = $1 and override_id = $2${opts.forUpdate ? ' for update' : ''}`, [
      orgId,
      id,
    ]);
  },
  async revoke(q: Queryable, orgId: string, id: string, by: string | null, reason: string, now: Date) {
    await q.query('update control_overrides set revoked_at = $3, revoked_by = $4, revoke_reason = $5 where org_id = $1 and override_id = $2', [
      orgId,
      id,
      now,
      by,
      reason,
    ]);
  },
  /** Overrides in force at `now` on a site (or every site). */
  async active(q: Queryable, orgId: string, now: Date, siteId?: string): Promise<OverrideRow[]> {
    const p: unknown[] = [orgId, now];
    const site = siteId === undefined ? '' : ` and site_id = $${p.push(siteId)}`;
    return (
      await q.query<OverrideRow>(
        `select * from control_overrides where org_id = $1 and revoked_at is null and starts_at <= $2 and expires_at > $2${site} order by created_at`,
        p,
      )
    ).rows;
  },
  async page(
    q: Queryable,
    orgId: string,
    now: Date,
    f: { siteId?: string; status?: 'active' | 'revoked' | 'expired'; before?: { t: string; id: string }; limit: number },
  ) {
    const p: unknown[] = [orgId];
    const w = ['org_id = $1'];
    if (f.siteId !== undefined) w.push(`site_id = $${p.push(f.siteId)}`);
    if (f.status === 'revoked') w.push('revoked_at is not null');
    if (f.status === 'active') w.push(`revoked_at is null and expires_at > $${p.push(now)}`);
    if (f.status === 'expired') w.push(`revoked_at is null and expires_at <= $${p.push(now)}`);
    if (f.before) w.push(`(${OV_POS}, override_id::text) < ($${p.push(f.before.t)}, $${p.push(f.before.id)})`);
    return (
      await q.query<OverrideRow & { pos: string }>(
        `select *, ${OV_POS} as pos from control_overrides where ${w.join(' and ')} order by ${OV_POS} desc, override_id::text desc limit ${f.limit + 1}`,
        p,
      )
    ).rows;
  },
};

export interface EventRow {
  event_id: string;
  site_id: string;
  trigger: 'schedule' | 'manual';
  tick_at: Date | null;
  at: Date;
  limit_kw: number;
  boundary_before_kw: number;
  boundary_after_kw: number;
  action: string;
  outcome: string;
  commands: unknown;
  decision_id: string;
}
const EV_POS = `to_char("at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

export const eventStore = {
  /** Claims the scheduled iteration of a site for a tick; false when another instance has it. */
  async claimTick(q: Queryable, orgId: string, siteId: string, tickAt: Date, eventId: string, decisionId: string, at: Date): Promise<boolean> {
    const r = await q.query(
      `insert into control_export_events (org_id, event_id, site_id, trigger, tick_at, at, limit_kw, boundary_before_kw, boundary_after_kw, action, outcome, commands, decision_id)
       values ($1, $2, $3, 'schedule', $4, $5, 0, 0, 0, 'pending', 'pending', '[]', $6)
       on conflict (org_id, site_id, tick_at) where tick_at is not null do nothing returning event_id`,
      [orgId, eventId, siteId, tickAt, at, decisionId],
    );
    return r.rows.length === 1;
  },
  async insert(q: Queryable, orgId: string, e: EventRow) {
    await q.query(
      `insert into control_export_events (org_id, event_id, site_id, trigger, tick_at, at, limit_kw, boundary_before_kw, boundary_after_kw, action, outcome, commands, decision_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       on conflict (event_id) do update set limit_kw = excluded.limit_kw, boundary_before_kw = excluded.boundary_before_kw,
         boundary_after_kw = excluded.boundary_after_kw, action = excluded.action, outcome = excluded.outcome, commands = excluded.commands`,
      [
        orgId,
        e.event_id,
        e.site_id,
        e.trigger,
        e.tick_at,
        e.at,
        e.limit_kw,
        e.boundary_before_kw,
        e.boundary_after_kw,
        e.action,
        e.outcome,
        JSON.stringify(e.commands),
        e.decision_id,
      ],
    );
  },
  async page(q: Queryable, orgId: string, siteId: string, f: { before?: { t: string; id: string }; limit: number }) {
    const p: unknown[] = [orgId, siteId];
    const w = ['org_id = $1', 'site_id = $2'];
    if (f.before) w.push(`(${EV_POS}, event_id::text) < ($${p.push(f.before.t)}, $${p.push(f.before.id)})`);
    return (
      await q.query<EventRow & { pos: string }>(
        `select *, ${EV_POS} as pos from control_export_events where ${w.join(' and ')} order by ${EV_POS} desc, event_id::text desc limit ${f.limit + 1}`,
        p,
      )
    ).rows;
  },
  /**
   * Retention (every organisation; the background connection): deletes scheduled iterations that
   * sent nothing (`action` none) from before `before`, with their decisions, in batches. Iterations
   * that acted, manual runs and every other decision are kept.
   */
  async purgeIdleTicks(q: Queryable, before: Date, batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await q.query<{ n: number }>(
        `with gone as (
           delete from control_export_events where event_id in (
             select event_id from control_export_events where tick_at is not null and action = 'none' and "at" < $1 limit ${batch})
           returning org_id, decision_id),
         d as (delete from control_decisions c using gone where c.org_id = gone.org_id and c.decision_id = gone.decision_id returning 1)
         select (select count(*) from gone)::int as n`,
        [before],
      );
      const n = r.rows[0]?.n ?? 0;
      total += n;
      if (n < batch) return total;
    }
  },
  async lastBySite(q: Queryable, orgId: string): Promise<Map<string, { at: Date; outcome: string }>> {
    const r = await q.query<{ site_id: string; at: Date; outcome: string }>(
      'select distinct on (site_id) site_id, "at", outcome from control_export_events where org_id = $1 order by site_id, "at" desc',
      [orgId],
    );
    return new Map(r.rows.map((x) => [x.site_id, { at: new Date(x.at), outcome: x.outcome }]));
  },
};
