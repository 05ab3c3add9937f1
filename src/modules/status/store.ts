// Incident SQL. Platform-wide tables (decision 0224): no organisation filter by design.
import type { Queryable } from '../../infra/db/index.ts';

export interface IncidentRow {
  id: string;
  title: string;
  impact: string;
  affected_components: string[];
  state: string;
  started_at: Date;
  resolved_at: Date | null;
  updated_at: Date;
}
export interface UpdateRow {
  id: string;
  incident_id: string;
  seq: number;
  state: string;
  impact: string;
  message: string;
  created_at: Date;
}

const COLS = 'id, title, impact, affected_components, state, started_at, resolved_at, updated_at';

export const incidentStore = {
  async insert(q: Queryable, i: IncidentRow, createdBy: string) {
    await q.query(`insert into status_incidents (${COLS}, created_by) values ($1,$2,$3,$4,$5,$6,$7,$8,$9)`, [
      i.id,
      i.title,
      i.impact,
      i.affected_components,
      i.state,
      i.started_at,
      i.resolved_at,
      i.updated_at,
      createdBy,
    ]);
  },
  async one(q: Queryable, id: string) {
    return (await q.query<IncidentRow>(`select ${COLS} from status_incidents where id=$1`, [id])).rows[0];
  },
  async lockOne(q: Queryable, id: string) {
    return (await q.query<IncidentRow>(`select ${COLS} from status_incidents where id=$1 for update`, [id])).rows[0];
  },
  async setState(q: Queryable, id: string, state: string, impact: string, resolvedAt: Date | null, now: Date) {
    await q.query('update status_incidents set state=$2, impact=$3, resolved_at=$4, updated_at=$5 where id=$1', [id, state, impact, resolvedAt, now]);
  },
  async addUpdate(q: Queryable, u: Omit<UpdateRow, 'seq'>, createdBy: string) {
    await q.query(
      `insert into status_incident_updates (id, incident_id, seq, state, impact, message, created_at, created_by)
       values ($1, $2, (select coalesce(max(seq), 0) + 1 from status_incident_updates where incident_id=$2), $3, $4, $5, $6, $7)`,
      [u.id, u.incident_id, u.state, u.impact, u.message, u.created_at, createdBy],
    );
  },
  /** Newest first; `open` = not resolved. */
  async list(q: Queryable, filter: 'open' | 'resolved' | 'all', limit: number) {
    const where = filter === 'open' ? "where state <> 'resolved'" : filter === 'resolved' ? "where state = 'resolved'" : '';
    return (await q.query<IncidentRow>(`select ${COLS} from status_incidents ${where} order by started_at desc, n desc limit $1`, [limit])).rows;
  },
  async updatesOf(q: Queryable, ids: string[]) {
    if (ids.length === 0) return [];
    return (
      await q.query<UpdateRow>(
        'select id, incident_id, seq, state, impact, message, created_at from status_incident_updates where incident_id = any($1) order by incident_id, seq',
        [ids],
      )
    ).rows;
  },
};
