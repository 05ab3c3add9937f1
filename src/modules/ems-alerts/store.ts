// SQL of EMS alerts, alert admin and routing. Every function takes the organisation first and
// filters on it.
import type { Queryable } from '../../infra/db/index.ts';

export interface EmsAlertRow {
  alert_id: string;
  org_id: string;
  dedupe_key: string;
  source: string;
  site_id: string | null;
  asset_id: string | null;
  since: Date;
  severity: string;
  impact_pence: string; // bigint comes back as text
  method: string;
  evidence: Record<string, unknown>;
  evaluated_at: Date;
}

export interface AdminStateRow {
  alert_id: string;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  assigned_to: string | null;
  assigned_by: string | null;
  assigned_at: Date | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  resolution_reason: string | null;
}

export interface AdminEventRow {
  id: string;
  alert_id: string;
  action: string;
  actor_id: string | null;
  at: Date;
  note: string | null;
  details: Record<string, unknown>;
}

/** A rule's JSON columns (match, channels, escalation) as the statements take them. */
function ruleJson(r: Pick<RuleRow, 'match' | 'channels' | 'escalation'>): [string, string, string | null] {
  return [JSON.stringify(r.match), JSON.stringify(r.channels), r.escalation ? JSON.stringify(r.escalation) : null];
}

export interface RuleRow {
  seq: number;
  id: string;
  org_id: string;
  name: string;
  enabled: boolean;
  match: Record<string, unknown>;
  channels: StoredChannel[];
  escalation: { after_minutes: number; channels: StoredChannel[] } | null;
  created_at: Date;
  created_by: string | null;
  updated_at: Date;
  updated_by: string | null;
}

/** A channel as stored: secrets sealed (`secret_enc`, `url_enc`). */
export type StoredChannel =
  | { type: 'email'; to: string }
  | { type: 'team_chat'; format: 'slack' | 'teams'; url_enc: string; url_hint: string; key: string }
  | { type: 'webhook'; url: string; secret_enc: string }
  | { type: 'user'; user_id: string };

export interface DeliveryRow {
  seq: number;
  id: string;
  org_id: string;
  alert_id: string;
  rule_id: string;
  channel_key: string;
  channel_type: string;
  target: string;
  reason: 'routed' | 'escalated';
  trigger: string;
  outcome: 'sending' | 'delivered' | 'failed' | 'suppressed';
  status_code: number | null;
  error: string | null;
  event_id: string | null;
  attempted_at: Date;
  duration_ms: number | null;
  attempted_key: string;
}

const DCOLS = `seq, id, org_id, alert_id, rule_id, channel_key, channel_type, target, reason, trigger, outcome, status_code, error,
  event_id, attempted_at, duration_ms, to_char(attempted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as attempted_key`;
const RCOLS = 'seq, id, org_id, name, enabled, match, channels, escalation, created_at, created_by, updated_at, updated_by';

export const emsStore = {
  // ---- policy
  async policy(q: Queryable, orgId: string): Promise<{ policy: Record<string, unknown>; updated_at: Date; updated_by: string | null } | null> {
    const r = await q.query<{ policy: Record<string, unknown>; updated_at: Date; updated_by: string | null }>(
      'select policy, updated_at, updated_by from ems_alert_policies where org_id = $1',
      [orgId],
    );
    return r.rows[0] ?? null;
  },
  async savePolicy(q: Queryable, orgId: string, policy: object, at: Date, by: string | null) {
    await q.query(
      `insert into ems_alert_policies (org_id, policy, updated_at, updated_by) values ($1, $2, $3, $4)
       on conflict (org_id) do update set policy = excluded.policy, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [orgId, JSON.stringify(policy), at, by],
    );
  },
  async deletePolicy(q: Queryable, orgId: string): Promise<boolean> {
    const r = await q.query('delete from ems_alert_policies where org_id = $1', [orgId]);
    return (r.rowCount ?? 0) > 0;
  },

  // ---- EMS alert figures
  async upsertAlert(q: Queryable, orgId: string, a: Omit<EmsAlertRow, 'org_id' | 'impact_pence'> & { impact_pence: bigint }) {
    await q.query(
      `insert into ems_alerts (alert_id, org_id, dedupe_key, source, site_id, asset_id, since, severity, impact_pence, method, evidence, evaluated_at)
       values ($2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       on conflict (alert_id) do update set severity = excluded.severity, impact_pence = excluded.impact_pence,
         evidence = excluded.evidence, method = excluded.method, evaluated_at = excluded.evaluated_at
       where ems_alerts.org_id = excluded.org_id`,
      [
        orgId,
        a.alert_id,
        a.dedupe_key,
        a.source,
        a.site_id,
        a.asset_id,
        a.since,
        a.severity,
        a.impact_pence.toString(),
        a.method,
        JSON.stringify(a.evidence),
        a.evaluated_at,
      ],
    );
  },
  async alertsByIds(q: Queryable, orgId: string, ids: string[]): Promise<EmsAlertRow[]> {
    if (ids.length === 0) return [];
    const r = await q.query<EmsAlertRow>(
      `select alert_id, org_id, dedupe_key, source, site_id, asset_id, since, severity, impact_pence::text as impact_pence, method, evidence, evaluated_at
       from ems_alerts where org_id = $1 and alert_id = any($2::text[])`,
      [orgId, ids],
    );
    return r.rows;
  },

  // ---- alert admin
  async adminStates(q: Queryable, orgId: string | null, ids: string[]): Promise<AdminStateRow[]> {
    if (ids.length === 0) return [];
    const r = await q.query<AdminStateRow>(
      `select alert_id, acknowledged_at, acknowledged_by, assigned_to, assigned_by, assigned_at, resolved_by, resolved_at, resolution_reason
       from alert_admin_state where ($1::text is null or org_id = $1) and alert_id = any($2::text[])`,
      [orgId, ids],
    );
    return r.rows;
  },
  async setAdmin(q: Queryable, orgId: string, alertId: string, patch: Partial<Omit<AdminStateRow, 'alert_id'>>) {
    const cols = Object.keys(patch) as (keyof typeof patch)[];
    const sets = cols.map((c, i) => `${c} = $${i + 3}`).join(', ');
    await q.query(
      `insert into alert_admin_state (alert_id, org_id${cols.map((c) => `, ${c}`).join('')})
       values ($1, $2${cols.map((_, i) => `, $${i + 3}`).join('')})
       on conflict (alert_id) do update set ${sets} where alert_admin_state.org_id = $2`,
      [alertId, orgId, ...cols.map((c) => patch[c])],
    );
  },
  async addEvent(q: Queryable, orgId: string, e: AdminEventRow) {
    await q.query(`insert into alert_admin_events (id, org_id, alert_id, action, actor_id, at, note, details) values ($1, $2, $3, $4, $5, $6, $7, $8)`, [
      e.id,
      orgId,
      e.alert_id,
      e.action,
      e.actor_id,
      e.at,
      e.note,
      JSON.stringify(e.details),
    ]);
  },
  async events(q: Queryable, orgId: string | null, alertIds: string[]): Promise<(AdminEventRow & { org_id: string })[]> {
    if (alertIds.length === 0) return [];
    const r = await q.query<AdminEventRow & { org_id: string }>(
      `select id, org_id, alert_id, action, actor_id, at, note, details from alert_admin_events
       where ($1::text is null or org_id = $1) and alert_id = any($2::text[]) order by at, seq`,
      [orgId, alertIds],
    );
    return r.rows;
  },
  // ---- routing rules
  async rules(q: Queryable, orgId: string): Promise<RuleRow[]> {
    const r = await q.query<RuleRow>(`select ${RCOLS} from ems_routing_rules where org_id = $1 order by created_at, seq`, [orgId]);
    return r.rows;
  },
  async rule(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<RuleRow | null> {
    const r = await q.query<RuleRow>(`select ${RCOLS} from ems_routing_rules where org_id = $1 and id = $2${forUpdate ? ' for update' : ''}`, [orgId, id]);
    return r.rows[0] ?? null;
  },
  async countRules(q: Queryable, orgId: string): Promise<number> {
    const r = await q.query<{ n: number }>('select count(*)::int as n from ems_routing_rules where org_id = $1', [orgId]);
    return r.rows[0].n;
  },
  async insertRule(q: Queryable, orgId: string, r: Omit<RuleRow, 'seq' | 'org_id'>): Promise<RuleRow> {
    const res = await q.query<RuleRow>(
      `insert into ems_routing_rules (id, org_id, name, enabled, match, channels, escalation, created_at, created_by, updated_at, updated_by)
       values ($2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning ${RCOLS}`,
      [orgId, r.id, r.name, r.enabled, ...ruleJson(r), r.created_at, r.created_by, r.updated_at, r.updated_by],
    );
    return res.rows[0];
  },
  async updateRule(
    q: Queryable,
    orgId: string,
    id: string,
    r: Pick<RuleRow, 'name' | 'enabled' | 'match' | 'channels' | 'escalation' | 'updated_at' | 'updated_by'>,
  ) {
    const res = await q.query<RuleRow>(
      `update ems_routing_rules set name = $3, enabled = $4, match = $5, channels = $6, escalation = $7, updated_at = $8, updated_by = $9
       where org_id = $1 and id = $2 returning ${RCOLS}`,
      [orgId, id, r.name, r.enabled, ...ruleJson(r), r.updated_at, r.updated_by],
    );
    return res.rows[0] ?? null;
  },
  async deleteRule(q: Queryable, orgId: string, id: string): Promise<boolean> {
    const r = await q.query('delete from ems_routing_rules where org_id = $1 and id = $2', [orgId, id]);
    return (r.rowCount ?? 0) > 0;
  },

  // ---- deliveries
  /**
   * Claims (alert, channel, reason) with a `sending` row, committed by the caller before anything
   * is sent. Null when it is already claimed (by this or another instance): nothing is sent.
   */
  async claim(q: Queryable, orgId: string, d: Omit<DeliveryRow, 'seq' | 'org_id' | 'outcome' | 'status_code' | 'error' | 'duration_ms' | 'attempted_key'>) {
    const r = await q.query<DeliveryRow>(
      `insert into ems_deliveries (id, org_id, alert_id, rule_id, channel_key, channel_type, target, reason, trigger, outcome, event_id, attempted_at)
       values ($2, $1, $3, $4, $5, $6, $7, $8, $9, 'sending', $10, $11)
       on conflict (org_id, alert_id, channel_key, reason) where outcome <> 'suppressed' do nothing
       returning ${DCOLS}`,
      [orgId, d.id, d.alert_id, d.rule_id, d.channel_key, d.channel_type, d.target, d.reason, d.trigger, d.event_id, d.attempted_at],
    );
    return r.rows[0] ?? null;
  },
  async suppressed(q: Queryable, orgId: string, d: Omit<DeliveryRow, 'seq' | 'org_id' | 'outcome' | 'status_code' | 'duration_ms' | 'attempted_key'>) {
    const r = await q.query<DeliveryRow>(
      `insert into ems_deliveries (id, org_id, alert_id, rule_id, channel_key, channel_type, target, reason, trigger, outcome, error, event_id, attempted_at, duration_ms)
       values ($2, $1, $3, $4, $5, $6, $7, $8, $9, 'suppressed', $10, $11, $12, 0) returning ${DCOLS}`,
      [orgId, d.id, d.alert_id, d.rule_id, d.channel_key, d.channel_type, d.target, d.reason, d.trigger, d.error, d.event_id, d.attempted_at],
    );
    return r.rows[0];
  },
  async record(
    q: Queryable,
    orgId: string,
    id: string,
    o: { outcome: 'delivered' | 'failed'; status_code: number | null; error: string | null; duration_ms: number },
  ) {
    const r = await q.query<DeliveryRow>(
      `update ems_deliveries set outcome = $3, status_code = $4, error = $5, duration_ms = $6 where org_id = $1 and id = $2 returning ${DCOLS}`,
      [orgId, id, o.outcome, o.status_code, o.error, o.duration_ms],
    );
    return r.rows[0];
  },
  /** Whether (alert, channel, reason) is claimed already. */
  async claimedKeys(q: Queryable, orgId: string, alertIds: string[]): Promise<Set<string>> {
    if (alertIds.length === 0) return new Set();
    const r = await q.query<{ k: string }>(
      `select alert_id || '|' || channel_key || '|' || reason as k from ems_deliveries
       where org_id = $1 and alert_id = any($2::text[]) and outcome <> 'suppressed'`,
      [orgId, alertIds],
    );
    return new Set(r.rows.map((x) => x.k));
  },
  async pageDeliveries(
    q: Queryable,
    orgId: string,
    f: { alertId?: string; ruleId?: string; outcome?: string; before?: { t: string; seq: number }; limit: number },
  ): Promise<DeliveryRow[]> {
    const r = await q.query<DeliveryRow>(
      `select ${DCOLS} from ems_deliveries
       where org_id = $1 and ($2::text is null or alert_id = $2) and ($3::text is null or rule_id = $3) and ($4::text is null or outcome = $4)
         and ($5::timestamptz is null or (attempted_at, seq) < ($5::timestamptz, $6::bigint))
       order by attempted_at desc, seq desc limit $7`,
      [orgId, f.alertId ?? null, f.ruleId ?? null, f.outcome ?? null, f.before?.t ?? null, f.before?.seq ?? 0, f.limit],
    );
    return r.rows;
  },
};
