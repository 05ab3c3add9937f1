// Health checks recorded by the scheduled status job. Not organisation data: the public status
// operation reads them for the service as a whole.
import type { Queryable } from '../../../infra/db/index.ts';

export interface WindowCounts {
  component: string;
  n24: number;
  ok24: number;
  n7: number;
  ok7: number;
  n30: number;
  ok30: number;
  last_checked: Date | null;
  last_ok: boolean | null;
}

export const healthStore = {
  async record(q: Queryable, checks: { component: string; ok: boolean; latencyMs: number; detail: string | null }[], at: Date) {
    for (const c of checks) {
      await q.query('insert into health_checks (component, checked_at, ok, latency_ms, detail) values ($1, $2, $3, $4, $5)', [
        c.component,
        at,
        c.ok,
        c.latencyMs,
        c.detail,
      ]);
    }
  },

  async windows(q: Queryable, now: Date): Promise<WindowCounts[]> {
    const d = (ms: number) => new Date(now.getTime() - ms);
    const r = await q.query<WindowCounts>(
      `select component,
         count(*) filter (where checked_at > $2)::int as n24, count(*) filter (where checked_at > $2 and ok)::int as ok24,
         count(*) filter (where checked_at > $3)::int as n7, count(*) filter (where checked_at > $3 and ok)::int as ok7,
         count(*)::int as n30, count(*) filter (where ok)::int as ok30,
         max(checked_at) as last_checked,
         (array_agg(ok order by checked_at desc, id desc))[1] as last_ok
       from health_checks where checked_at > $4 and checked_at <= $1
       group by component`,
      [now, d(86_400_000), d(7 * 86_400_000), d(30 * 86_400_000)],
    );
    return r.rows;
  },

  async purge(q: Queryable, before: Date): Promise<number> {
    return (await q.query('delete from health_checks where checked_at < $1', [before])).rowCount;
  },
};
