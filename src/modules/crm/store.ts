// CRM SQL: every query filters on org_id; a row of another organisation is a missing one.
import { firstRow, type Queryable } from '../../infra/db/index.ts';

export interface SettingsRow {
  org_id: string;
  stages: { name: string; probability: number }[];
  retention_days: number;
  templates: { name: string; subject: string; body: string }[];
  salt: string;
  updated_at: Date;
}

export interface AccountRow {
  id: string;
  org_id: string;
  name: string;
  domain: string | null;
  kind: 'prospect' | 'customer' | 'partner';
  notes: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ContactRow {
  id: string;
  org_id: string;
  account_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  job_title: string | null;
  opted_out_at: Date | null;
  erased_at: Date | null;
  last_engaged_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DealRow {
  id: string;
  org_id: string;
  account_id: string;
  contact_id: string | null;
  title: string;
  /** numeric(18, 2): text from the driver. */
  value: string;
  currency: string;
  stage: string;
  /** A date column: a Date at UTC midnight or 'YYYY-MM-DD', as the driver gives it. */
  expected_close: Date | string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ActivityRow {
  id: string;
  org_id: string;
  kind: 'call' | 'email' | 'meeting' | 'note';
  account_id: string | null;
  contact_id: string | null;
  deal_id: string | null;
  subject: string;
  body: string | null;
  occurred_at: Date;
  created_at: Date;
}

export interface TaskRow {
  id: string;
  org_id: string;
  title: string;
  due_at: Date;
  account_id: string | null;
  contact_id: string | null;
  deal_id: string | null;
  assignee_id: string | null;
  done_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MoveRow {
  id: string;
  org_id: string;
  deal_id: string;
  from_stage: string | null;
  to_stage: string;
  reason: string | null;
  moved_by: string | null;
  moved_at: Date;
}

/** Open deals summed by stage, close month ('YYYY-MM' or 'unscheduled') and currency. */
export interface PipelineRow {
  stage: string;
  month: string;
  n: number;
  total: string;
  currency: string;
}

/** The row of each record kind. */
export interface RowOf {
  account: AccountRow;
  contact: ContactRow;
  deal: DealRow;
  activity: ActivityRow;
  task: TaskRow;
}
/** Columns to write: values as the driver takes them (a date may be 'YYYY-MM-DD', a value decimal text). */
export type Columns<K extends Kind> = { [C in Exclude<keyof RowOf[K], 'org_id'>]?: unknown };
export const TABLES = {
  account: 'crm_accounts',
  contact: 'crm_contacts',
  deal: 'crm_deals',
  activity: 'crm_activities',
  task: 'crm_tasks',
} as const;
export type Kind = keyof typeof TABLES;

/** A condition on column `col` that every text a redactor would change satisfies (its anchors, decision 0295). */
function anchorCondition(col: string, anchors: { text: string[]; digits: string[]; all: boolean }, params: unknown[]): string {
  if (anchors.all) return `${col} is not null`;
  const conds: string[] = [];
  if (anchors.text.length) {
    params.push([...new Set(anchors.text)]);
    conds.push(
      `exists (select 1 from unnest($${params.length}::text[]) a where strpos(translate(${col}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), a) > 0)`,
    );
  }
  if (anchors.digits.length) {
    params.push([...new Set(anchors.digits)]);
    conds.push(`exists (select 1 from unnest($${params.length}::text[]) a where strpos(regexp_replace(${col}, '[^0-9]', '', 'g'), a) > 0)`);
  }
  return conds.length ? `(${conds.join(' or ')})` : 'false';
}

/** The CRM tables' statements (docs/development.md "Stores"). */
export const crmStore = {
  async getSettings(q: Queryable, orgId: string): Promise<SettingsRow | null> {
    return firstRow<SettingsRow>(q, `select * from crm_settings where org_id = $1`, [orgId]);
  },

  async putSettings(q: Queryable, orgId: string, s: { stages: unknown; retention_days: number; templates: unknown; salt: string; now: Date }) {
    await q.query(
      `insert into crm_settings (org_id, stages, retention_days, templates, salt, updated_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (org_id) do update set stages = excluded.stages, retention_days = excluded.retention_days, templates = excluded.templates, updated_at = excluded.updated_at`,
      [orgId, JSON.stringify(s.stages), s.retention_days, JSON.stringify(s.templates), s.salt, s.now],
    );
  },

  async insert<K extends Kind>(q: Queryable, kind: K, orgId: string, row: Columns<K>): Promise<RowOf[K]> {
    const cols = ['org_id', ...Object.keys(row)];
    const vals = [orgId, ...Object.values(row)];
    const r = await q.query<RowOf[K]>(
      `insert into ${TABLES[kind]} (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}) returning *`,
      vals,
    );
    return r.rows[0]!;
  },

  async get<K extends Kind>(q: Queryable, kind: K, orgId: string, id: string, lock = false): Promise<RowOf[K] | null> {
    return firstRow<RowOf[K]>(q, `select * from ${TABLES[kind]} where org_id = $1 and id = $2${lock ? ' for update' : ''}`, [orgId, id]);
  },

  async update<K extends Kind>(q: Queryable, kind: K, orgId: string, id: string, set: Columns<K>): Promise<RowOf[K] | null> {
    const keys = Object.keys(set);
    if (!keys.length) return crmStore.get(q, kind, orgId, id);
    const r = await q.query<RowOf[K]>(
      `update ${TABLES[kind]} set ${keys.map((k, i) => `${k} = $${i + 3}`).join(', ')} where org_id = $1 and id = $2 returning *`,
      [orgId, id, ...Object.values(set)],
    );
    return r.rows[0] ?? null;
  },

  async remove(q: Queryable, kind: Kind, orgId: string, id: string): Promise<boolean> {
    return ((await q.query(`delete from ${TABLES[kind]} where org_id = $1 and id = $2`, [orgId, id])).rowCount ?? 0) > 0;
  },

  /** A page, newest first by `order` (a timestamp column), ties by id; filters are column = value. */
  async list<K extends Kind>(
    q: Queryable,
    kind: K,
    orgId: string,
    opts: { order: string; filters: Record<string, unknown>; after?: { t: string; id: string }; limit: number; extra?: string; asc?: boolean },
  ): Promise<RowOf[K][]> {
    const params: unknown[] = [orgId];
    const where = ['org_id = $1'];
    for (const [k, v] of Object.entries(opts.filters)) {
      if (v === undefined) continue;
      params.push(v);
      where.push(`${k} = $${params.length}`);
    }
    if (opts.extra) where.push(opts.extra);
    const cmp = opts.asc ? '>' : '<';
    if (opts.after) {
      params.push(opts.after.t, opts.after.id);
      where.push(`(${opts.order}, id) ${cmp} ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(opts.limit + 1);
    const dir = opts.asc ? 'asc' : 'desc';
    const r = await q.query<RowOf[K]>(
      `select * from ${TABLES[kind]} where ${where.join(' and ')} order by ${opts.order} ${dir}, id ${dir} limit $${params.length}`,
      params,
    );
    return r.rows;
  },

  async count(q: Queryable, kind: Kind, orgId: string, column: string, value: string): Promise<number> {
    const r = await q.query<{ n: number }>(`select count(*)::int as n from ${TABLES[kind]} where org_id = $1 and ${column} = $2`, [orgId, value]);
    return r.rows[0]!.n;
  },

  async dealsInStages(q: Queryable, orgId: string, stages: string[]): Promise<{ stage: string; n: number }[]> {
    return (await q.query(`select stage, count(*)::int as n from crm_deals where org_id = $1 and stage = any($2::text[]) group by stage`, [orgId, stages]))
      .rows as { stage: string; n: number }[];
  },

  async addMove(
    q: Queryable,
    orgId: string,
    m: { id: string; deal_id: string; from_stage: string | null; to_stage: string; reason: string | null; moved_by: string | null; moved_at: Date },
  ) {
    await q.query(`insert into crm_deal_moves (id, org_id, deal_id, from_stage, to_stage, reason, moved_by, moved_at) values ($1,$2,$3,$4,$5,$6,$7,$8)`, [
      m.id,
      orgId,
      m.deal_id,
      m.from_stage,
      m.to_stage,
      m.reason,
      m.moved_by,
      m.moved_at,
    ]);
  },

  async moves(q: Queryable, orgId: string, dealId: string): Promise<MoveRow[]> {
    return (await q.query<MoveRow>(`select * from crm_deal_moves where org_id = $1 and deal_id = $2 order by moved_at, seq`, [orgId, dealId])).rows;
  },

  /** Open deals' value by stage and close month, summed in numeric (exact decimals). */
  async pipeline(q: Queryable, orgId: string, openStages: string[]): Promise<PipelineRow[]> {
    const r = await q.query<PipelineRow>(
      `select stage, coalesce(to_char(expected_close, 'YYYY-MM'), 'unscheduled') as month, count(*)::int as n, sum(value)::text as total, currency
         from crm_deals where org_id = $1 and stage = any($2::text[]) group by stage, month, currency order by month, stage`,
      [orgId, openStages],
    );
    return r.rows;
  },

  /** A contact engaged at `at`: its last engagement moves forward, never back. */
  async touchContact(q: Queryable, orgId: string, contactId: string, at: Date) {
    await q.query(`update crm_contacts set last_engaged_at = greatest(coalesce(last_engaged_at, $3), $3) where org_id = $1 and id = $2`, [
      orgId,
      contactId,
      at,
    ]);
  },

  /** Erasure: the bodies of a contact's activities go; answers how many. */
  async clearActivityBodies(q: Queryable, orgId: string, contactId: string): Promise<number> {
    const r = await q.query(`update crm_activities set body = null where org_id = $1 and contact_id = $2 and body is not null`, [orgId, contactId]);
    return r.rowCount ?? 0;
  },

  async addSuppression(q: Queryable, orgId: string, hash: string, reason: string, now: Date) {
    await q.query(`insert into crm_suppressions (org_id, hash, reason, created_at) values ($1, $2, $3, $4) on conflict do nothing`, [orgId, hash, reason, now]);
  },

  async suppressed(q: Queryable, orgId: string, hashes: string[]): Promise<boolean> {
    if (!hashes.length) return false;
    const r = await q.query(`select 1 from crm_suppressions where org_id = $1 and hash = any($2::text[]) limit 1`, [orgId, hashes]);
    return r.rows.length > 0;
  },

  /**
   * Runs `redact` over the free texts of the organisation's CRM rows that may mention a person (the
   * anchors pick candidates) and writes back what changed; answers how many column values changed.
   * Contacts' own names are not free text: another contact of the same name is another person.
   */
  async redactText(q: Queryable, orgId: string, anchors: { text: string[]; digits: string[]; all: boolean }, redact: (s: string) => string): Promise<number> {
    const targets: [string, string[]][] = [
      ['crm_accounts', ['name', 'notes']],
      ['crm_contacts', ['job_title']],
      ['crm_deals', ['title']],
      ['crm_deal_moves', ['reason']],
      ['crm_activities', ['subject', 'body']],
      ['crm_tasks', ['title']],
    ];
    let n = 0;
    for (const [table, cols] of targets) {
      const params: unknown[] = [orgId];
      const where = cols.map((c) => anchorCondition(c, anchors, params)).join(' or ');
      const rows = (await q.query(`select id, ${cols.join(', ')} from ${table} where org_id = $1 and (${where}) order by id`, params)).rows as Record<
        string,
        unknown
      >[];
      for (const row of rows) {
        const set: Record<string, string> = {};
        for (const c of cols) {
          if (typeof row[c] !== 'string') continue;
          const v = redact(row[c]);
          if (v !== row[c]) set[c] = v;
        }
        const keys = Object.keys(set);
        if (!keys.length) continue;
        await q.query(`update ${table} set ${keys.map((k, i) => `${k} = $${i + 3}`).join(', ')} where org_id = $1 and id = $2`, [
          orgId,
          row.id,
          ...Object.values(set),
        ]);
        n += keys.length;
      }
    }
    return n;
  },

  /** Every name, e-mail address and number a contact has held (decision 0295). */
  async addIdentities(q: Queryable, orgId: string, contactId: string, values: { kind: 'name' | 'email' | 'phone'; value: string }[], now: Date) {
    for (const v of values) {
      await q.query(`insert into crm_contact_identities (org_id, contact_id, kind, value, recorded_at) values ($1, $2, $3, $4, $5) on conflict do nothing`, [
        orgId,
        contactId,
        v.kind,
        v.value,
        now,
      ]);
    }
  },

  async identities(q: Queryable, orgId: string, contactId: string): Promise<{ kind: string; value: string }[]> {
    return (
      await q.query(`select kind, value from crm_contact_identities where org_id = $1 and contact_id = $2 order by recorded_at, kind, value`, [
        orgId,
        contactId,
      ])
    ).rows as { kind: string; value: string }[];
  },

  async removeIdentities(q: Queryable, orgId: string, contactId: string) {
    await q.query(`delete from crm_contact_identities where org_id = $1 and contact_id = $2`, [orgId, contactId]);
  },

  /** Contacts not erased whose last engagement (or creation) is before $2 and whose account has no deal won. */
  async stale(q: Queryable, orgId: string, before: Date, wonStage: string): Promise<ContactRow[]> {
    const r = await q.query<ContactRow>(
      `select c.* from crm_contacts c where c.org_id = $1 and c.erased_at is null and coalesce(c.last_engaged_at, c.created_at) < $2
         and (c.account_id is null or exists (select 1 from crm_accounts a where a.org_id = $1 and a.id = c.account_id and a.kind = 'prospect'))
         and not exists (select 1 from crm_deals d where d.org_id = $1 and (d.account_id = c.account_id or d.contact_id = c.id) and d.stage = $3)
       order by coalesce(c.last_engaged_at, c.created_at), c.id`,
      [orgId, before, wonStage],
    );
    return r.rows;
  },

  /** Import matching: the first row of `kind` whose lower-cased column equals the value (and account, when given). */
  async findByText<K extends Kind>(
    q: Queryable,
    kind: K,
    orgId: string,
    column: keyof RowOf[K] & string,
    value: string,
    accountId?: string,
  ): Promise<RowOf[K] | null> {
    const params: unknown[] = [orgId, value.toLowerCase()];
    let sql = `select * from ${TABLES[kind]} where org_id = $1 and lower(${column}) = $2`;
    if (accountId !== undefined) {
      params.push(accountId);
      sql += ` and account_id = $3`;
    }
    return firstRow<RowOf[K]>(q, `${sql} order by created_at, id limit 1`, params);
  },
};
