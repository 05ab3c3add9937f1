// Webhook endpoint SQL. Every function takes the organisation first and filters on it, except
// the watchdog's list of organisations to walk (marked).
import type { Queryable } from '../../../infra/db/index.ts';
import type { Environment } from '../common.ts';

export interface EndpointRow {
  id: string;
  org_id: string;
  environment: Environment;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: Date | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLS = `id, org_id, environment, url, description, event_types, enabled, disabled_reason, disabled_at, secret_enc,
  previous_secret_enc, previous_secret_until, failing_since, last_success_at, last_failure_at, created_at, updated_at`;

export const endpointStore = {
  async insert(
    q: Queryable,
    orgId: string,
    e: { id: string; environment: Environment; url: string; description: string; event_types: string[]; secret_enc: string; now: Date },
  ): Promise<EndpointRow> {
    const r = await q.query<EndpointRow>(
      `insert into webhook_endpoints (id, org_id, environment, url, description, event_types, secret_enc, created_at, updated_at)
       values ($2, $1, $3, $4, $5, $6, $7, $8, $8) returning ${COLS}`,
      [orgId, e.id, e.environment, e.url, e.description, e.event_types, e.secret_enc, e.now],
    );
    return r.rows[0];
  },

  async get(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<EndpointRow | null> {
    const r = await q.query<EndpointRow>(`select ${COLS} from webhook_endpoints where org_id = $1 and id = $2${forUpdate ? ' for update' : ''}`, [orgId, id]);
    return r.rows[0] ?? null;
  },

  async list(q: Queryable, orgId: string, env?: Environment): Promise<EndpointRow[]> {
    const r = await q.query<EndpointRow>(
      `select ${COLS} from webhook_endpoints where org_id = $1 and ($2::text is null or environment = $2)
       order by created_at desc, id desc`,
      [orgId, env ?? null],
    );
    return r.rows;
  },

  async count(q: Queryable, orgId: string): Promise<number> {
    return (await q.query<{ n: number }>('select count(*)::int as n from webhook_endpoints where org_id = $1', [orgId])).rows[0].n;
  },

  /** Enabled endpoints of an environment that take `type` (or exactly `ids` when given). */
  async targets(q: Queryable, orgId: string, env: Environment, type: string, ids?: string[]): Promise<EndpointRow[]> {
    const r = await q.query<EndpointRow>(
      `select ${COLS} from webhook_endpoints
       where org_id = $1 and environment = $2 and enabled
         and (case when $4::text[] is null then $3 = any(event_types) else id = any($4::text[]) end)
       order by created_at, id`,
      [orgId, env, type, ids ?? null],
    );
    return r.rows;
  },

  async update(
    q: Queryable,
    orgId: string,
    id: string,
    set: Partial<
      Pick<
        EndpointRow,
        | 'url'
        | 'description'
        | 'event_types'
        | 'enabled'
        | 'disabled_reason'
        | 'disabled_at'
        | 'failing_since'
        | 'secret_enc'
        | 'previous_secret_enc'
        | 'previous_secret_until'
      >
    > & { updated_at: Date },
  ): Promise<EndpointRow | null> {
    const keys = Object.keys(set) as (keyof typeof set)[];
    const assigns = keys.map((k, i) => `${k} = $${i + 3}`).join(', ');
    const r = await q.query<EndpointRow>(`update webhook_endpoints set ${assigns} where org_id = $1 and id = $2 returning ${COLS}`, [
      orgId,
      id,
      ...keys.map((k) => set[k]),
    ]);
    return r.rows[0] ?? null;
  },

  async remove(q: Queryable, orgId: string, id: string): Promise<boolean> {
    return (await q.query('delete from webhook_endpoints where org_id = $1 and id = $2', [orgId, id])).rowCount === 1;
  },

  async markSuccess(q: Queryable, orgId: string, id: string, now: Date): Promise<void> {
    await q.query('update webhook_endpoints set failing_since = null, last_success_at = $3 where org_id = $1 and id = $2', [orgId, id, now]);
  },

  /** Records a failure; returns the start of the current run of failures and whether it is enabled. */
  async markFailure(q: Queryable, orgId: string, id: string, now: Date): Promise<{ failing_since: Date; enabled: boolean } | null> {
    const r = await q.query<{ failing_since: Date; enabled: boolean }>(
      `update webhook_endpoints set failing_since = coalesce(failing_since, $3), last_failure_at = $3
       where org_id = $1 and id = $2 returning failing_since, enabled`,
      [orgId, id, now],
    );
    return r.rows[0] ?? null;
  },

  /** Disables an enabled endpoint for continuous failure; true only for the call that did it. */
  async disableFailing(q: Queryable, orgId: string, id: string, now: Date): Promise<boolean> {
    const r = await q.query(
      `update webhook_endpoints set enabled = false, disabled_reason = 'failing', disabled_at = $3, updated_at = $3
       where org_id = $1 and id = $2 and enabled`,
      [orgId, id, now],
    );
    return r.rowCount === 1;
  },

  /** Organisations with an enabled live endpoint taking `type` (the watchdog walks these). Not organisation data. */
  async orgsListening(q: Queryable, type: string): Promise<string[]> {
    const r = await q.query<{ org_id: string }>(
      `select distinct org_id from webhook_endpoints where environment = 'live' and enabled and $1 = any(event_types) order by org_id`,
      [type],
    );
    return r.rows.map((x) => x.org_id);
  },
};
