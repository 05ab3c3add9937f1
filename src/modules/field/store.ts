// Field SQL: SLA policies, work orders with their stored clocks, and work-order events.
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';
import type { Queryable } from '../../infra/db/index.ts';
import type { ClockSnapshot, TimelineEntry } from './sla-clock.ts';
import type { SlaPolicy } from './vocabulary.ts';

export interface WorkOrderRow {
  id: string;
  org_id: string;
  site_id: string | null;
  asset_id: string | null;
  priority: string;
  kind: string;
  description: string;
  status: string;
  assignee_id: string | null;
  scheduled_for: Date | null;
  source_type: string;
  source_id: string | null;
  sla_policy: SlaPolicy;
  timeline: { at: string; status: string }[];
  sla_computed_at: Date;
  response_elapsed_ms: string | number;
  response_running: boolean;
  response_due_at: Date | null;
  response_risk_at: Date | null;
  response_stopped_at: Date | null;
  response_cancelled: boolean;
  resolution_elapsed_ms: string | number;
  resolution_running: boolean;
  resolution_due_at: Date | null;
  resolution_risk_at: Date | null;
  resolution_stopped_at: Date | null;
  resolution_cancelled: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  created_key?: string;
}

export interface EventRow {
  seq: string | number;
  id: string;
  type: string;
  at: Date;
  actor_id: string | null;
  data: Record<string, unknown>;
}

export interface Clocks {
  computedAt: Date;
  response: ClockSnapshot;
  resolution: ClockSnapshot;
}

const d = (t: number | null) => (t === null ? null : new Date(t));

function clockParams(c: Clocks) {
  const r = c.response;
  const s = c.resolution;
  return [
    c.computedAt,
    r.elapsed_ms,
    r.running,
    d(r.due_at),
    d(r.risk_at),
    d(r.stopped_at),
    r.cancelled,
    s.elapsed_ms,
    s.running,
    d(s.due_at),
    d(s.risk_at),
    d(s.stopped_at),
    s.cancelled,
  ];
}

const CLOCK_COLUMNS =
  'sla_computed_at, response_elapsed_ms, response_running, response_due_at, response_risk_at, response_stopped_at, response_cancelled, resolution_elapsed_ms, resolution_running, resolution_due_at, resolution_risk_at, resolution_stopped_at, resolution_cancelled';

const COLUMNS = `*, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as created_key`;

/** SQL of the work order's SLA risk at $now (the placeholder given). */
export function riskSql(now: string): string {
  const breached = `(response_due_at <= ${now} or resolution_due_at <= ${now})`;
  const atRisk = `((response_stopped_at is null and response_risk_at <= ${now}) or (resolution_stopped_at is null and resolution_risk_at <= ${now}))`;
  return `case when ${breached} then 'breached' when ${atRisk} then 'at_risk' else 'ok' end`;
}

export interface ListFilter {
  status?: string;
  priority?: string;
  siteId?: string;
  assigneeId?: string;
  unassigned?: boolean;
  risk?: string;
  before?: { t: string; id: string };
  now: Date;
  limit: number;
}

export const fieldStore = {
  async policies(q: Queryable, orgId: string): Promise<{ priority: string; policy: SlaPolicy; updated_at: Date; updated_by: string | null }[]> {
    return (
      await q.query<{ priority: string; policy: SlaPolicy; updated_at: Date; updated_by: string | null }>(
        `select priority, policy, updated_at, updated_by from field_sla_policies where org_id = $1`,
        [orgId],
      )
    ).rows;
  },

  async putPolicy(q: Queryable, orgId: string, p: SlaPolicy, at: Date, by: string | null) {
    await q.query(
      `insert into field_sla_policies (org_id, priority, policy, updated_at, updated_by) values ($1, $2, $3, $4, $5)
       on conflict (org_id, priority) do update set policy = excluded.policy, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [orgId, p.priority, JSON.stringify(p), at, by],
    );
  },

  async deletePolicy(q: Queryable, orgId: string, priority: string): Promise<boolean> {
    return ((await q.query(`delete from field_sla_policies where org_id = $1 and priority = $2`, [orgId, priority])).rowCount ?? 0) > 0;
  },

  /** Inserts the work order; null when the unique source key (alert, open stale feed) is taken. */
  async insert(
    q: Queryable,
    orgId: string,
    w: {
      id: string;
      siteId: string | null;
      assetId: string | null;
      priority: string;
      kind: string;
      description: string;
      sourceType: string;
      sourceId: string | null;
      policy: SlaPolicy;
      timeline: TimelineEntry[];
      clocks: Clocks;
      createdBy: string | null;
      at: Date;
    },
  ): Promise<WorkOrderRow | null> {
    const r = await q.query(
      `insert into field_work_orders (id, org_id, site_id, asset_id, priority, kind, description, status, source_type, source_id, sla_policy, timeline,
         created_by, created_at, updated_at, ${CLOCK_COLUMNS})
       values ($1, $2, $3, $4, $5, $6, $7, 'new', $8, $9, $10, $11, $12, $13, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)
       on conflict do nothing
       returning ${COLUMNS}`,
      [
        w.id,
        orgId,
        w.siteId,
        w.assetId,
        w.priority,
        w.kind,
        w.description,
        w.sourceType,
        w.sourceId,
        JSON.stringify(w.policy),
        timelineJson(w.timeline),
        w.createdBy,
        w.at,
        ...clockParams(w.clocks),
      ],
    );
    return (r.rows[0] as unknown as WorkOrderRow | undefined) ?? null;
  },

  async get(q: Queryable, orgId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<WorkOrderRow | null> {
    const r = await q.query(`select ${COLUMNS} from field_work_orders where org_id = $1 and id = $2${opts.forUpdate ? ' for update' : ''}`, [orgId, id]);
    return (r.rows[0] as unknown as WorkOrderRow | undefined) ?? null;
  },

  async bySource(q: Queryable, orgId: string, sourceType: string, sourceId: string, openOnly: boolean): Promise<WorkOrderRow | null> {
    const r = await q.query(
      `select ${COLUMNS} from field_work_orders where org_id = $1 and source_type = $2 and source_id = $3
       ${openOnly ? `and status in ('new', 'assigned', 'scheduled', 'in_progress', 'on_hold')` : ''} order by created_at desc limit 1`,
      [orgId, sourceType, sourceId],
    );
    return (r.rows[0] as unknown as WorkOrderRow | undefined) ?? null;
  },

  /** Work orders opened from these alerts, by alert id. */
  async byAlerts(q: Queryable, orgId: string, alertIds: string[]): Promise<Map<string, string>> {
    if (alertIds.length === 0) return new Map();
    const r = await q.query(`select source_id, id from field_work_orders where org_id = $1 and source_type = 'alert' and source_id = any($2)`, [
      orgId,
      alertIds,
    ]);
    return new Map((r.rows as { source_id: string; id: string }[]).map((x) => [x.source_id, x.id]));
  },

  /** Open work orders per asset id. */
  async openByAsset(q: Queryable, orgId: string): Promise<Map<string, number>> {
    const r = await q.query(
      `select asset_id, count(*)::int as n from field_work_orders where org_id = $1 and asset_id is not null
       and status in ('new', 'assigned', 'scheduled', 'in_progress', 'on_hold') group by asset_id`,
      [orgId],
    );
    return new Map((r.rows as { asset_id: string; n: number }[]).map((x) => [x.asset_id, x.n]));
  },

  async update(
    q: Queryable,
    orgId: string,
    id: string,
    set: {
      status?: string;
      assigneeId?: string;
      priority?: string;
      scheduledFor?: Date | null;
      policy?: SlaPolicy;
      timeline?: TimelineEntry[];
      clocks?: Clocks;
    },
    at: Date,
  ): Promise<WorkOrderRow> {
    const cols: string[] = ['updated_at = $3'];
    const params: unknown[] = [orgId, id, at];
    const add = (col: string, v: unknown) => {
      params.push(v);
      cols.push(`${col} = $${params.length}`);
    };
    if (set.status !== undefined) add('status', set.status);
    if (set.assigneeId !== undefined) add('assignee_id', set.assigneeId);
    if (set.priority !== undefined) add('priority', set.priority);
    if (set.scheduledFor !== undefined) add('scheduled_for', set.scheduledFor);
    if (set.policy !== undefined) add('sla_policy', JSON.stringify(set.policy));
    if (set.timeline !== undefined) add('timeline', timelineJson(set.timeline));
    if (set.clocks) {
      const names = CLOCK_COLUMNS.split(', ');
      clockParams(set.clocks).forEach((v, i) => add(names[i], v));
    }
    const r = await q.query(`update field_work_orders set ${cols.join(', ')} where org_id = $1 and id = $2 returning ${COLUMNS}`, params);
    return r.rows[0] as unknown as WorkOrderRow;
  },

  async addEvent(
    q: Queryable,
    orgId: string,
    e: { id: string; workOrderId: string; type: string; at: Date; actorId: string | null; data: Record<string, unknown> },
  ): Promise<EventRow> {
    const r = await q.query(
      `insert into field_work_order_events (id, org_id, work_order_id, type, at, actor_id, data) values ($1, $2, $3, $4, $5, $6, $7)
       returning seq, id, type, at, actor_id, data`,
      [e.id, orgId, e.workOrderId, e.type, e.at, e.actorId, JSON.stringify(e.data)],
    );
    return r.rows[0] as unknown as EventRow;
  },

  async events(q: Queryable, orgId: string, workOrderId: string): Promise<EventRow[]> {
    return (
      await q.query(`select seq, id, type, at, actor_id, data from field_work_order_events where org_id = $1 and work_order_id = $2 order by seq`, [
        orgId,
        workOrderId,
      ])
    ).rows as unknown as EventRow[];
  },

  async page(q: Queryable, orgId: string, f: ListFilter): Promise<WorkOrderRow[]> {
    const where = ['org_id = $1'];
    const params: unknown[] = [orgId, f.now];
    const add = (sql: (p: string) => string, v: unknown) => {
      params.push(v);
      where.push(sql(`$${params.length}`));
    };
    if (f.status) add((p) => `status = ${p}`, f.status);
    if (f.priority) add((p) => `priority = ${p}`, f.priority);
    if (f.siteId) add((p) => `site_id = ${p}`, f.siteId);
    if (f.assigneeId) add((p) => `assignee_id = ${p}`, f.assigneeId);
    if (f.unassigned) where.push('assignee_id is null');
    if (f.risk) add((p) => `${riskSql('$2::timestamptz')} = ${p}`, f.risk);
    if (f.before) {
      params.push(f.before.t, f.before.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamp at time zone 'UTC', $${params.length})`);
    }
    params.push(f.limit);
    const r = await q.query(
      `select ${COLUMNS} from field_work_orders where ${where.join(' and ')} and $2::timestamptz is not null
       order by created_at desc, id desc limit $${params.length}`,
      params,
    );
    return r.rows as unknown as WorkOrderRow[];
  },

  /** Open work orders with a running clock not yet due, soonest next deadline first. */
  async due(q: Queryable, orgId: string, now: Date, limit: number): Promise<(WorkOrderRow & { next_due_at: Date })[]> {
    const next = `least(case when response_running and response_due_at > $2 then response_due_at end,
                        case when resolution_running and resolution_due_at > $2 then resolution_due_at end)`;
    const r = await q.query<WorkOrderRow & { next_due_at: Date }>(
      `select * from (select ${COLUMNS}, ${next} as next_due_at from field_work_orders where org_id = $1) w
       where next_due_at is not null order by next_due_at, id limit $3`,
      [orgId, now, limit],
    );
    return r.rows;
  },

  /** Work orders created in [from, to), for the SLA report. */
  async createdBetween(q: Queryable, orgId: string, from: Date, to: Date): Promise<WorkOrderRow[]> {
    return (
      await q.query(`select ${COLUMNS} from field_work_orders where org_id = $1 and created_at >= $2 and created_at < $3 order by created_at, id`, [
        orgId,
        from,
        to,
      ])
    ).rows as unknown as WorkOrderRow[];
  },
};

function timelineJson(t: TimelineEntry[]): string {
  return JSON.stringify(t.map((e) => ({ at: new Date(e.at).toISOString(), status: e.status })));
}

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) ----------
/** Field work orders for the organisation's export (decision 0206): rows as JSON text from the database. */
export const fieldExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'field.work_orders',
    description: 'Field work orders: site, asset, priority, kind, description, status, assignee, schedule, source, SLA policy, status timeline and SLA clocks.',
    table: 'field_work_orders',
    columns: [
      'id',
      'site_id',
      'asset_id',
      'priority',
      'kind',
      'description',
      'status',
      'assignee_id',
      'scheduled_for:iso',
      'source_type',
      'source_id',
      'sla_policy',
      'timeline',
      'sla_computed_at:iso',
      'response_elapsed_ms:text',
      'response_running',
      'response_due_at:iso',
      'response_risk_at:iso',
      'response_stopped_at:iso',
      'response_cancelled',
      'resolution_elapsed_ms:text',
      'resolution_running',
      'resolution_due_at:iso',
      'resolution_risk_at:iso',
      'resolution_stopped_at:iso',
      'resolution_cancelled',
      'created_by',
      'created_at:iso',
      'updated_at:iso',
    ],
    period: 'created_at',
    key: ['id:text'],
  }),
];
