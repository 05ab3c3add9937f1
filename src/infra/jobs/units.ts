// The SQL of failing units of cross-organisation work (job_units, decision 0285): read at the start
// of a run, written after each unit that fails or recovers, listed and released by operators.
import type { Queryable } from '../db/index.ts';

export interface UnitRow {
  kind: string;
  org_id: string;
  unit_key: string;
  attempts: number;
  error_class: string;
  last_error: string | null;
  first_failed_at: Date;
  last_failed_at: Date;
  retry_at: Date;
  quarantined_at: Date | null;
}

export interface UnitFilter {
  kind?: string;
  orgId?: string;
  key?: string;
  /** Only quarantined units (not those still within their attempts). */
  quarantinedOnly?: boolean;
}

const COLS = 'kind, org_id, unit_key, attempts, error_class, last_error, first_failed_at, last_failed_at, retry_at, quarantined_at';

function where(f: UnitFilter): [string, unknown[]] {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (f.kind !== undefined) clauses.push(`kind = $${params.push(f.kind)}`);
  if (f.orgId !== undefined) clauses.push(`org_id = $${params.push(f.orgId)}`);
  if (f.key !== undefined) clauses.push(`unit_key = $${params.push(f.key)}`);
  if (f.quarantinedOnly) clauses.push('quarantined_at is not null');
  return [clauses.length ? `where ${clauses.join(' and ')}` : '', params];
}

const dated = (r: UnitRow): UnitRow => ({
  ...r,
  first_failed_at: new Date(r.first_failed_at),
  last_failed_at: new Date(r.last_failed_at),
  retry_at: new Date(r.retry_at),
  quarantined_at: r.quarantined_at ? new Date(r.quarantined_at) : null,
});

export const unitStore = {
  async list(q: Queryable, f: UnitFilter = {}): Promise<UnitRow[]> {
    const [w, params] = where(f);
    const r = await q.query<UnitRow>(`select ${COLS} from job_units ${w} order by kind, org_id, unit_key`, params);
    return r.rows.map(dated);
  },

  /** Records one failure of a unit (the caller computed its attempts and next try). */
  async fail(q: Queryable, row: UnitRow): Promise<void> {
    await q.query(
      `insert into job_units (${COLS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       on conflict (kind, org_id, unit_key) do update set attempts = excluded.attempts, error_class = excluded.error_class,
         last_error = excluded.last_error, last_failed_at = excluded.last_failed_at, retry_at = excluded.retry_at,
         quarantined_at = coalesce(job_units.quarantined_at, excluded.quarantined_at)`,
      [
        row.kind,
        row.org_id,
        row.unit_key,
        row.attempts,
        row.error_class,
        row.last_error,
        row.first_failed_at,
        row.last_failed_at,
        row.retry_at,
        row.quarantined_at,
      ],
    );
  },

  /** A unit that succeeded: its failures are forgotten. */
  async clear(q: Queryable, kind: string, orgId: string, key: string): Promise<void> {
    await q.query('delete from job_units where kind = $1 and org_id = $2 and unit_key = $3', [kind, orgId, key]);
  },

  /**
   * Releases the matching units (an operator's release): out of quarantine, attempts reset, due at
   * once. The row stays until the unit's next run succeeds, so work that holds a failing unit's
   * data apart (and redoes it whole) still does so once more.
   */
  async release(q: Queryable, f: UnitFilter): Promise<UnitRow[]> {
    const [w, params] = where(f);
    const r = await q.query<UnitRow>(`update job_units set attempts = 0, quarantined_at = null, retry_at = to_timestamp(0) ${w} returning ${COLS}`, params);
    return r.rows.map(dated);
  },

  /** Quarantined units per kind. */
  async quarantinedByKind(q: Queryable): Promise<{ kind: string; n: number }[]> {
    const r = await q.query<{ kind: string; n: number }>(
      'select kind, count(*)::int as n from job_units where quarantined_at is not null group by kind order by kind',
    );
    return r.rows;
  },
};
