// SQL of the statements module: baselines and signed statements. Every query filters on org_id,
// except the public lookup by statement hash (the hash is the handle its holder was given).
import type { Queryable } from '../../infra/db/index.ts';
import { sqlExportable } from '../../platform/exportable.ts';

export interface BaselineRow {
  baseline_id: string;
  site_id: string;
  method: string;
  reference_from: string;
  reference_to: string;
  figures: Record<string, unknown>;
  tariff_pence_per_kwh: string;
  note: string | null;
  status: 'proposed' | 'agreed' | 'withdrawn';
  proposed_by: string | null;
  proposed_at: Date;
  agreed_by: string | null;
  agreed_at: Date | null;
  withdrawn_by: string | null;
  withdrawn_at: Date | null;
  withdrawn_reason: string | null;
}

const B_COLS = `baseline_id, site_id, method, to_char(reference_from, 'YYYY-MM-DD') as reference_from,
  to_char(reference_to, 'YYYY-MM-DD') as reference_to, figures, tariff_pence_per_kwh::text as tariff_pence_per_kwh, note, status,
  proposed_by, proposed_at, agreed_by, agreed_at, withdrawn_by, withdrawn_at, withdrawn_reason`;

export async function insertBaseline(
  q: Queryable,
  orgId: string,
  b: Omit<BaselineRow, 'agreed_by' | 'agreed_at' | 'withdrawn_by' | 'withdrawn_at' | 'withdrawn_reason' | 'status'>,
) {
  await q.query(
    `insert into statement_baselines (org_id, baseline_id, site_id, method, reference_from, reference_to, figures, tariff_pence_per_kwh, note, status, proposed_by, proposed_at)
     values ($1, $2, $3, $4, $5::date, $6::date, $7::jsonb, $8::numeric, $9, 'proposed', $10, $11)`,
    [
      orgId,
      b.baseline_id,
      b.site_id,
      b.method,
      b.reference_from,
      b.reference_to,
      JSON.stringify(b.figures),
      b.tariff_pence_per_kwh,
      b.note,
      b.proposed_by,
      b.proposed_at,
    ],
  );
}

export async function baselineById(q: Queryable, orgId: string, id: string, lock = false): Promise<BaselineRow | null> {
  const r = await q.query<BaselineRow>(`select ${B_COLS} from statement_baselines where org_id = $1 and baseline_id = $2${lock ? ' for update' : ''}`, [
    orgId,
    id,
  ]);
  return r.rows[0] ?? null;
}

export async function baselinesOfSite(q: Queryable, orgId: string, siteId: string): Promise<BaselineRow[]> {
  const r = await q.query<BaselineRow>(
    `select ${B_COLS} from statement_baselines where org_id = $1 and site_id = $2 order by proposed_at desc, baseline_id desc limit 500`,
    [orgId, siteId],
  );
  return r.rows;
}

export async function agreeBaseline(q: Queryable, orgId: string, id: string, by: string | null, at: Date) {
  await q.query(`update statement_baselines set status = 'agreed', agreed_by = $3, agreed_at = $4 where org_id = $1 and baseline_id = $2`, [orgId, id, by, at]);
}

export async function withdrawBaseline(q: Queryable, orgId: string, id: string, by: string | null, at: Date, reason: string | null) {
  await q.query(
    `update statement_baselines set status = 'withdrawn', withdrawn_by = $3, withdrawn_at = $4, withdrawn_reason = $5 where org_id = $1 and baseline_id = $2`,
    [orgId, id, by, at, reason],
  );
}

export interface StatementRow {
  statement_id: string;
  site_id: string;
  baseline_id: string;
  statement_hash: string;
  signed_body: string;
  signature: string;
  kid: string;
  issued_at: Date;
}

const S_COLS = 'statement_id, site_id, baseline_id, statement_hash, signed_body, signature, kid, issued_at';

export async function insertStatement(q: Queryable, orgId: string, s: StatementRow & { period_from: string; period_to: string; issued_by: string | null }) {
  await q.query(
    `insert into statement_statements (org_id, statement_id, site_id, baseline_id, period_from, period_to, statement_hash, signed_body, signature, kid, issued_by, issued_at)
     values ($1, $2, $3, $4, $5::date, $6::date, $7, $8, $9, $10, $11, $12)`,
    [
      orgId,
      s.statement_id,
      s.site_id,
      s.baseline_id,
      s.period_from,
      s.period_to,
      s.statement_hash,
      s.signed_body,
      s.signature,
      s.kid,
      s.issued_by,
      s.issued_at,
    ],
  );
}

export async function statementById(q: Queryable, orgId: string, id: string): Promise<StatementRow | null> {
  const r = await q.query<StatementRow>(`select ${S_COLS} from statement_statements where org_id = $1 and statement_id = $2`, [orgId, id]);
  return r.rows[0] ?? null;
}

export async function listStatements(
  q: Queryable,
  orgId: string,
  f: { site_id?: string },
  before: { t: Date; id: string } | null,
  limit: number,
): Promise<StatementRow[]> {
  const params: unknown[] = [orgId];
  let where = 'org_id = $1';
  if (f.site_id !== undefined) {
    params.push(f.site_id);
    where += ` and site_id = $${params.length}`;
  }
  if (before) {
    params.push(before.t, before.id);
    where += ` and (issued_at, statement_id) < ($${params.length - 1}, $${params.length})`;
  }
  params.push(limit);
  const r = await q.query<StatementRow>(
    `select ${S_COLS} from statement_statements where ${where} order by issued_at desc, statement_id desc limit $${params.length}`,
    params,
  );
  return r.rows;
}

/** Public: a statement by its hash, whatever its organisation (the hash is the holder's handle). */
export async function statementByHash(q: Queryable, hash: string): Promise<StatementRow | null> {
  const r = await q.query<StatementRow>(`select ${S_COLS} from statement_statements where statement_hash = $1`, [hash]);
  return r.rows[0] ?? null;
}

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) -------------------------------
/** Baselines and statements for the organisation's export, each row JSON text from the database (decision 0206). */
export const statementExportables = [
  sqlExportable({
    name: 'statements.baselines',
    description: 'Fleet savings baselines: reference period, figures, tariff, who proposed, agreed or withdrawn them and when.',
    table: 'statement_baselines',
    columns: [
      'baseline_id',
      'site_id',
      'method',
      'reference_from:day',
      'reference_to:day',
      'figures',
      'tariff_pence_per_kwh:text',
      'note',
      'status',
      'proposed_by',
      'proposed_at:iso',
      'agreed_by',
      'agreed_at:iso',
      'withdrawn_by',
      'withdrawn_at:iso',
      'withdrawn_reason',
    ],
    period: 'proposed_at',
    key: ['baseline_id:text'],
  }),
  sqlExportable({
    name: 'statements.statements',
    description: 'Signed fleet savings statements: the signed body, signature, hash and key of each.',
    table: 'statement_statements',
    columns: [
      'statement_id',
      'site_id',
      'baseline_id',
      'statement_hash',
      'signed_body',
      'signature',
      'kid',
      'issued_at:iso',
      'period_from:day',
      'period_to:day',
      'issued_by',
    ],
    period: 'issued_at',
    key: ['statement_id:text'],
  }),
];
