// CRM SQL: every query filters on org_id; a row of another organisation is a missing one.
import type { Queryable } from '../../infra/db/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: CRM rows are untyped until createCrm is split into typed services (issue 37, item 3; the no-any guard allows this one line, decision 0333)
export type Row = Record<string, any>;
export const TABLES = {
  account: 'crm_accounts',
  contact: 'crm_contacts',
  deal: 'crm_deals',
  activity: 'crm_activities',
  task: 'crm_tasks',
} as const;
export type Kind = keyof typeof TABLES;

export async function getSettings(q: Queryable, orgId: string): Promise<Row | null> {
  return (await q.query(`select * from crm_settings where org_id = $1`, [orgId])).rows[0] ?? null;
}

export async function putSettings(q: Queryable, orgId: string, s: { stages: unknown; retention_days: number; templates: unknown; salt: string; now: Date }) {
  await q.query(
    `insert into crm_settings (org_id, stages, retention_days, templates, salt, updated_at) values ($1, $2, $3, $4, $5, $6)
     on conflict (org_id) do update set stages = excluded.stages, retention_days = excluded.retention_days, templates = excluded.templates, updated_at = excluded.updated_at`,
    [orgId, JSON.stringify(s.stages), s.retention_days, JSON.stringify(s.templates), s.salt, s.now],
  );
}

export async function insert(q: Queryable, kind: Kind, orgId: string, row: Row) {
  const cols = ['org_id', ...Object.keys(row)];
  const vals = [orgId, ...Object.values(row)];
  const r = await q.query(`insert into ${TABLES[kind]} (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}) returning *`, vals);
  return r.rows[0] as Row;
}

export async function get(q: Queryable, kind: Kind, orgId: string, id: string, lock = false): Promise<Row | null> {
  return (await q.query(`select * from ${TABLES[kind]} where org_id = $1 and id = $2${lock ? ' for update' : ''}`, [orgId, id])).rows[0] ?? null;
}

export async function update(q: Queryable, kind: Kind, orgId: string, id: string, set: Row): Promise<Row | null> {
  const keys = Object.keys(set);
  if (!keys.length) return get(q, kind, orgId, id);
  const r = await q.query(`update ${TABLES[kind]} set ${keys.map((k, i) => `${k} = $${i + 3}`).join(', ')} where org_id = $1 and id = $2 returning *`, [
    orgId,
    id,
    ...Object.values(set),
  ]);
  return r.rows[0] ?? null;
}

export async function remove(q: Queryable, kind: Kind, orgId: string, id: string): Promise<boolean> {
  return ((await q.query(`delete from ${TABLES[kind]} where org_id = $1 and id = $2`, [orgId, id])).rowCount ?? 0) > 0;
}

/** A page, newest first by `order` (a timestamp column), ties by id; filters are column = value. */
export async function list(
  q: Queryable,
  kind: Kind,
  orgId: string,
  opts: { order: string; filters: Row; after?: { t: string; id: string }; limit: number; extra?: string; asc?: boolean },
): Promise<Row[]> {
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
  const r = await q.query(
    `select * from ${TABLES[kind]} where ${where.join(' and ')} order by ${opts.order} ${dir}, id ${dir} limit $${params.length}`,
    params,
  );
  return r.rows as Row[];
}

export async function count(q: Queryable, kind: Kind, orgId: string, column: string, value: string): Promise<number> {
  const r = await q.query<{ n: number }>(`select count(*)::int as n from ${TABLES[kind]} where org_id = $1 and ${column} = $2`, [orgId, value]);
  return r.rows[0]!.n;
}

export async function dealsInStages(q: Queryable, orgId: string, stages: string[]): Promise<Row[]> {
  return (await q.query(`select stage, count(*)::int as n from crm_deals where org_id = $1 and stage = any($2::text[]) group by stage`, [orgId, stages]))
    .rows as Row[];
}

export async function addMove(
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
}

export async function moves(q: Queryable, orgId: string, dealId: string): Promise<Row[]> {
  return (await q.query(`select * from crm_deal_moves where org_id = $1 and deal_id = $2 order by moved_at, seq`, [orgId, dealId])).rows as Row[];
}

/** Open deals' value by stage and close month, summed in numeric (exact decimals). */
export async function pipeline(q: Queryable, orgId: string, openStages: string[]): Promise<Row[]> {
  const r = await q.query(
    `select stage, coalesce(to_char(expected_close, 'YYYY-MM'), 'unscheduled') as month, count(*)::int as n, sum(value)::text as total, currency
       from crm_deals where org_id = $1 and stage = any($2::text[]) group by stage, month, currency order by month, stage`,
    [orgId, openStages],
  );
  return r.rows as Row[];
}

export async function addSuppression(q: Queryable, orgId: string, hash: string, reason: string, now: Date) {
  await q.query(`insert into crm_suppressions (org_id, hash, reason, created_at) values ($1, $2, $3, $4) on conflict do nothing`, [orgId, hash, reason, now]);
}

export async function suppressed(q: Queryable, orgId: string, hashes: string[]): Promise<boolean> {
  if (!hashes.length) return false;
  const r = await q.query(`select 1 from crm_suppressions where org_id = $1 and hash = any($2::text[]) limit 1`, [orgId, hashes]);
  return r.rows.length > 0;
}

/** A condition on column `col` that every text a redactor would change satisfies (its anchors, decision 0295). */
export function anchorCondition(col: string, anchors: { text: string[]; digits: string[]; all: boolean }, params: unknown[]): string {
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

/**
 * Runs `redact` over the free texts of the organisation's CRM rows that may mention a person (the
 * anchors pick candidates) and writes back what changed; answers how many column values changed.
 * Contacts' own names are not free text: another contact of the same name is another person.
 */
export async function redactText(
  q: Queryable,
  orgId: string,
  anchors: { text: string[]; digits: string[]; all: boolean },
  redact: (s: string) => string,
): Promise<number> {
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
    const rows = (await q.query(`select id, ${cols.join(', ')} from ${table} where org_id = $1 and (${where}) order by id`, params)).rows as Row[];
    for (const row of rows) {
      const set: Row = {};
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
}

/** Every name, e-mail address and number a contact has held (decision 0295). */
export async function addIdentities(q: Queryable, orgId: string, contactId: string, values: { kind: 'name' | 'email' | 'phone'; value: string }[], now: Date) {
  for (const v of values) {
    await q.query(`insert into crm_contact_identities (org_id, contact_id, kind, value, recorded_at) values ($1, $2, $3, $4, $5) on conflict do nothing`, [
      orgId,
      contactId,
      v.kind,
      v.value,
      now,
    ]);
  }
}

export async function identities(q: Queryable, orgId: string, contactId: string): Promise<{ kind: string; value: string }[]> {
  return (
    await q.query(`select kind, value from crm_contact_identities where org_id = $1 and contact_id = $2 order by recorded_at, kind, value`, [orgId, contactId])
  ).rows as { kind: string; value: string }[];
}

export async function removeIdentities(q: Queryable, orgId: string, contactId: string) {
  await q.query(`delete from crm_contact_identities where org_id = $1 and contact_id = $2`, [orgId, contactId]);
}

/** Contacts not erased whose last engagement (or creation) is before $2 and whose account has no deal won. */
export async function stale(q: Queryable, orgId: string, before: Date, wonStage: string): Promise<Row[]> {
  const r = await q.query(
    `select c.* from crm_contacts c where c.org_id = $1 and c.erased_at is null and coalesce(c.last_engaged_at, c.created_at) < $2
       and (c.account_id is null or exists (select 1 from crm_accounts a where a.org_id = $1 and a.id = c.account_id and a.kind = 'prospect'))
       and not exists (select 1 from crm_deals d where d.org_id = $1 and (d.account_id = c.account_id or d.contact_id = c.id) and d.stage = $3)
     order by coalesce(c.last_engaged_at, c.created_at), c.id`,
    [orgId, before, wonStage],
  );
  return r.rows as Row[];
}

/** Import matching: the first row of `kind` whose lower-cased column equals the value (and account, when given). */
export async function findByText(q: Queryable, kind: Kind, orgId: string, column: string, value: string, accountId?: string): Promise<Row | null> {
  const params: unknown[] = [orgId, value.toLowerCase()];
  let sql = `select * from ${TABLES[kind]} where org_id = $1 and lower(${column}) = $2`;
  if (accountId !== undefined) {
    params.push(accountId);
    sql += ` and account_id = $3`;
  }
  return (await q.query(`${sql} order by created_at, id limit 1`, params)).rows[0] ?? null;
}
