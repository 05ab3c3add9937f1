import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, declaredOperations, get, post } from '../api.ts';
import { subscribe } from '../live.ts';
import { pounds, when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui.tsx';

interface EmsAlert {
  id: string;
  source: string;
  severity: string;
  status: string;
  title: string;
  site_id: string | null;
  asset_id: string | null;
  raised_at: string;
  impact_gbp_per_day: string;
  impact_method: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  assigned_to: string | null;
}

export function Alerts() {
  const list = useLoad(() => get<{ alerts: EmsAlert[]; total_impact_gbp_per_day: string; ranked_by: string }>('/api/hardware/ems/alerts'), []);
  const me = useLoad(() => get<{ user_id: string }>('/api/auth/me'), []);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The newest action started: an earlier one answering later must not overwrite its note or error.
  const latest = useRef(0);
  useEffect(() => subscribe((event) => event === 'alert' && list.reload()), [list.reload]);

  async function run(action: () => Promise<string>) {
    const mine = ++latest.current;
    setError(null);
    setNote(null);
    try {
      const what = await action();
      if (mine === latest.current) setNote(what);
      list.reload();
    } catch (err) {
      if (mine === latest.current) setError(err);
    }
  }
  const act = (what: string, path: string, body: unknown) =>
    run(async () => {
      await post(path, body);
      return what;
    });
  const evaluate = () =>
    run(async () => {
      const r = await post<{ raised: unknown[]; resolved: unknown[] }>('/api/hardware/ems/alerts/evaluate');
      return `Evaluated: ${r.raised.length} raised, ${r.resolved?.length ?? 0} resolved.`;
    });

  return (
    <>
      <Section title="Alerts by pound impact" id="alerts-title">
        <div class="toolbar">
          <button type="button" onClick={evaluate}>
            Evaluate now
          </button>
          {list.data && (
            <span>
              Open impact: <strong>{pounds(list.data.total_impact_gbp_per_day, ' a day')}</strong>
            </span>
          )}
        </div>
        <p role="status" aria-live="polite" class="small">
          {note}
        </p>
        <ErrorNote error={error} />
        {list.loading && !list.data && <Loading what="alerts" />}
        <ErrorNote error={list.error} retry={list.reload} />
        {list.data && list.data.alerts.length === 0 && <Empty>No open alerts.</Empty>}
        {list.data && list.data.alerts.length > 0 && (
          <ol class="alerts">
            {list.data.alerts.map((a) => (
              <AlertItem key={a.id} a={a} me={me.data?.user_id ?? null} act={act} />
            ))}
          </ol>
        )}
      </Section>
      <WorkOrders />
    </>
  );
}

function AlertItem({ a, me, act }: { a: EmsAlert; me: string | null; act: (what: string, path: string, body: unknown) => Promise<void> }) {
  const [reason, setReason] = useState('');
  const [assignee, setAssignee] = useState('');
  const base = `/api/hardware/admin/alerts-history/${encodeURIComponent(a.id)}`;
  return (
    <li class={`alert sev-${a.severity}`}>
      <div class="alert-head">
        <strong class="impact">{pounds(a.impact_gbp_per_day, ' a day')}</strong>
        <span class={`badge sev-${a.severity}`}>{a.severity}</span>
        <span>{a.title}</span>
      </div>
      <p class="small">
        {a.source} · {a.site_id ?? 'no site'}
        {a.asset_id ? ` / ${a.asset_id}` : ''} · raised {when(a.raised_at)}
        {a.acknowledged_at ? ` · acknowledged ${when(a.acknowledged_at)}` : ' · not acknowledged'}
        {a.assigned_to ? ` · assigned to ${a.assigned_to}` : ''}
      </p>
      <p class="small">{a.impact_method}</p>
      <div class="actions">
        <button type="button" disabled={!!a.acknowledged_at} onClick={() => act(`Acknowledged “${a.title}”.`, `${base}/acknowledge`, {})}>
          {a.acknowledged_at ? 'Acknowledged' : 'Acknowledge'}
        </button>
        <label>
          <span class="sr-only">Assign {a.title} to user id</span>
          <input placeholder="user id" value={assignee} onInput={(e) => setAssignee(e.currentTarget.value)} />
        </label>
        <button type="button" onClick={() => act(`Assigned “${a.title}”.`, `${base}/assign`, { user_id: assignee || me })} disabled={!assignee && !me}>
          {assignee ? 'Assign' : 'Assign to me'}
        </button>
        <label>
          <span class="sr-only">Reason for resolving {a.title}</span>
          <input placeholder="reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </label>
        <button type="button" disabled={!reason.trim()} onClick={() => act(`Resolved “${a.title}”.`, `${base}/resolve`, { reason })}>
          Resolve
        </button>
      </div>
    </li>
  );
}

interface WorkOrder {
  id: string;
  title: string;
  status: string;
  priority: string;
  due_at?: string | null;
  created_at: string;
}

function WorkOrders() {
  const orders = useLoad(async () => {
    const ops = await declaredOperations();
    if (!ops.has('GET /api/hardware/field/work-orders')) return { absent: true as const };
    try {
      return { list: await get<{ work_orders?: WorkOrder[]; items?: WorkOrder[] }>('/api/hardware/field/work-orders') };
    } catch (err) {
      if (err instanceof ApiError && err.status === 403 && /Module not enabled/.test(err.message)) return { disabled: true as const };
      throw err;
    }
  }, []);
  const d = orders.data as any;
  if (!d || d.absent || d.disabled) return orders.error ? <ErrorNote error={orders.error} /> : null;
  const items: WorkOrder[] = d.list.work_orders ?? d.list.items ?? [];
  return (
    <Section title="Work orders" id="wo-title">
      {items.length === 0 ? (
        <Empty>No work orders.</Empty>
      ) : (
        <ul class="list">
          {items.map((w) => (
            <li key={w.id}>
              <strong>{w.title}</strong> <span class="badge">{w.status}</span>{' '}
              <span class="small">
                priority {w.priority} · created {when(w.created_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
