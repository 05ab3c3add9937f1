// SQL of the organisation alert stream. Every function takes the organisation first and filters on it.
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';
import type { Queryable } from '../../infra/db/index.ts';

export type Severity = 'info' | 'warning' | 'critical';

export interface AlertRow {
  seq: number;
  id: string;
  org_id: string;
  type: string;
  source: string;
  severity: Severity;
  status: 'open' | 'resolved';
  subject_type: string | null;
  subject_id: string | null;
  title: string;
  details: Record<string, unknown>;
  dedupe_key: string;
  raised_at: Date;
  resolved_at: Date | null;
  resolution: string | null;
  /** raised_at as exact text (microseconds), for cursors. */
  raised_key: string;
}

const COLS = `seq, id, org_id, type, source, severity, status, subject_type, subject_id, title, details, dedupe_key,
  raised_at, resolved_at, resolution, to_char(raised_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as raised_key`;

export interface NewAlert {
  id: string;
  type: string;
  source: string;
  severity: Severity;
  subjectType: string | null;
  subjectId: string | null;
  title: string;
  details: Record<string, unknown>;
  dedupeKey: string;
  raisedAt: Date;
}

export const alertStore = {
  /** Inserts the alert unless one is open with the same dedupe key; null when one is. */
  async insertOpen(q: Queryable, orgId: string, a: NewAlert): Promise<AlertRow | null> {
    const r = await q.query<AlertRow>(
      `insert into org_alerts (id, org_id, type, source, severity, status, subject_type, subject_id, title, details, dedupe_key, raised_at)
       values ($2, $1, $3, $4, $5, 'open', $6, $7, $8, $9, $10, $11)
       on conflict (org_id, dedupe_key) where status = 'open' do nothing
       returning ${COLS}`,
      [orgId, a.id, a.type, a.source, a.severity, a.subjectType, a.subjectId, a.title, JSON.stringify(a.details), a.dedupeKey, a.raisedAt],
    );
    return r.rows[0] ?? null;
  },

  async openByKey(q: Queryable, orgId: string, dedupeKey: string): Promise<AlertRow | null> {
    const r = await q.query<AlertRow>(`select ${COLS} from org_alerts where org_id = $1 and dedupe_key = $2 and status = 'open'`, [orgId, dedupeKey]);
    return r.rows[0] ?? null;
  },

  async resolve(q: Queryable, orgId: string, dedupeKey: string, at: Date, resolution: string): Promise<AlertRow | null> {
    const r = await q.query<AlertRow>(
      `update org_alerts set status = 'resolved', resolved_at = $3, resolution = $4
       where org_id = $1 and dedupe_key = $2 and status = 'open'
       returning ${COLS}`,
      [orgId, dedupeKey, at, resolution],
    );
    return r.rows[0] ?? null;
  },

  async byId(q: Queryable, orgId: string, id: string): Promise<AlertRow | null> {
    const r = await q.query<AlertRow>(`select ${COLS} from org_alerts where org_id = $1 and id = $2`, [orgId, id]);
    return r.rows[0] ?? null;
  },

  /** Open alerts raised by one source (e.g. 'ems'), oldest first. */
  async listOpenBySource(q: Queryable, orgId: string, source: string): Promise<AlertRow[]> {
    const r = await q.query<AlertRow>(`select ${COLS} from org_alerts where org_id = $1 and status = 'open' and source = $2 order by raised_at, seq`, [
      orgId,
      source,
    ]);
    return r.rows;
  },

  /**
   * Every organisation's alerts (platform staff), newest first, ties by seq; optional filters.
   * Not organisation-scoped on purpose: staff operations read across organisations.
   */
  async pageAll(
    q: Queryable,
    opts: { orgId?: string; status?: 'open' | 'resolved'; source?: string; since?: Date; before?: { t: string; seq: number }; limit: number },
  ): Promise<AlertRow[]> {
    const r = await q.query<AlertRow>(
      `select ${COLS} from org_alerts
       where ($1::text is null or org_id = $1)
         and ($2::text is null or status = $2)
         and ($3::text is null or source = $3)
         and ($4::timestamptz is null or raised_at >= $4)
         and ($5::timestamptz is null or (raised_at, seq) < ($5::timestamptz, $6::bigint))
       order by raised_at desc, seq desc
       limit $7`,
      [opts.orgId ?? null, opts.status ?? null, opts.source ?? null, opts.since ?? null, opts.before?.t ?? null, opts.before?.seq ?? 0, opts.limit],
    );
    return r.rows;
  },

  /** Counts of the organisation's alerts raised since `since`, by status and severity. */
  async counts(q: Queryable, orgId: string, since: Date): Promise<{ status: string; severity: string; n: number }[]> {
    const r = await q.query<{ status: string; severity: string; n: number }>(
      `select status, severity, count(*)::int as n from org_alerts
       where org_id = $1 and (status = 'open' or raised_at >= $2) group by 1, 2`,
      [orgId, since],
    );
    return r.rows;
  },

  async listOpen(q: Queryable, orgId: string, type?: string): Promise<AlertRow[]> {
    const r = await q.query<AlertRow>(
      `select ${COLS} from org_alerts where org_id = $1 and status = 'open' and ($2::text is null or type = $2)
       order by raised_at desc, seq desc`,
      [orgId, type ?? null],
    );
    return r.rows;
  },

  /** Newest first, ties by seq; `since` filters on raised_at; `before` is the keyset position. */
  async page(q: Queryable, orgId: string, opts: { since?: Date; before?: { t: string; seq: number }; limit: number }): Promise<AlertRow[]> {
    const r = await q.query<AlertRow>(
      `select ${COLS} from org_alerts
       where org_id = $1
         and ($2::timestamptz is null or raised_at >= $2)
         and ($3::timestamptz is null or (raised_at, seq) < ($3::timestamptz, $4::bigint))
       order by raised_at desc, seq desc
       limit $5`,
      [orgId, opts.since ?? null, opts.before?.t ?? null, opts.before?.seq ?? 0, opts.limit],
    );
    return r.rows;
  },
};

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) ----------
/** The organisation's alerts for its export (decision 0206): rows as JSON text from the database. */
export const alertsExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'alerts.alerts',
    description: 'Every alert raised for the organisation: type, source, severity, status, subject, title, details, when raised and resolved, and how.',
    table: 'org_alerts',
    columns: [
      'id',
      'type',
      'source',
      'severity',
      'status',
      'subject_type',
      'subject_id',
      'title',
      'details',
      'dedupe_key',
      'raised_at:iso',
      'resolved_at:iso',
      'resolution',
    ],
    period: 'raised_at',
    key: ['seq:bigint'],
  }),
];
