import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, data, declaredOperations, type Read } from '../api.ts';
import { subscribe } from '../live.ts';
import { pounds, when } from '../format.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { queryClient, refetchSoon, useRead } from '../query.ts';
import { msg } from '../messages.ts';

const al = msg.alerts;

type AlertList = Read<'/api/hardware/ems/alerts'>;
type EmsAlert = AlertList['alerts'][number];
type Act = (what: string, call: () => Promise<unknown>) => Promise<void>;

export function Alerts() {
  const list = useRead(['alerts'], () => data(api().GET('/api/hardware/ems/alerts')));
  const me = useRead(['me'], () => data(api().GET('/api/auth/me')), { staleTime: Infinity });
  const field = useRead(['field-on'], fieldOn, { staleTime: Number.POSITIVE_INFINITY });
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The newest action started: an earlier one answering later must not overwrite its note or error.
  const latest = useRef(0);
  // An alert acknowledged or assigned in any console changes this one's list from the event itself;
  // raised or resolved anywhere, the ranked list is fetched again, at most every few seconds.
  useEffect(
    () =>
      subscribe((e) => {
        if (e.event !== 'alert') return;
        const { transition, alert } = e.data;
        if (transition === 'acknowledged' || transition === 'assigned')
          queryClient.setQueryData<AlertList>(['alerts'], (old) =>
            old
              ? {
                  ...old,
                  alerts: old.alerts.map((a) =>
                    a.id === alert.id
                      ? { ...a, acknowledged_at: alert.acknowledged_at ?? a.acknowledged_at, assigned_to: alert.assigned_to ?? a.assigned_to }
                      : a,
                  ),
                }
              : old,
          );
        refetchSoon(['alerts']);
      }),
    [],
  );

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
  const act: Act = (what, call) =>
    run(async () => {
      await call();
      return what;
    });
  const evaluate = () =>
    run(async () => {
      const r = await data(api().POST('/api/hardware/ems/alerts/evaluate'));
      return al.evaluated(r.raised.length, r.resolved?.length ?? 0);
    });

  return (
    <>
      <Section title={al.title} id="alerts-title">
        <div class="toolbar">
          <button type="button" onClick={evaluate}>
            {al.evaluate}
          </button>
          {list.data && (
            <span>
              {al.openImpact} <strong>{pounds(list.data.total_impact_gbp_per_day, al.perDay)}</strong>
            </span>
          )}
        </div>
        <p role="status" aria-live="polite" class="small">
          {note}
        </p>
        <ErrorNote error={error} />
        {list.loading && !list.data && <Loading what={al.loading} />}
        <ErrorNote error={list.error} retry={list.reload} />
        {list.data && list.data.alerts.length === 0 && <Empty>{al.empty}</Empty>}
        {list.data && list.data.alerts.length > 0 && (
          <ol class="alerts">
            {list.data.alerts.map((a) => (
              <AlertItem key={a.id} a={a} me={me.data?.user_id ?? null} act={act} dispatch={field.data === true} />
            ))}
          </ol>
        )}
      </Section>
    </>
  );
}

function AlertItem({ a, me, act, dispatch }: { a: EmsAlert; me: string | null; act: Act; dispatch: boolean }) {
  const [reason, setReason] = useState('');
  const [assignee, setAssignee] = useState('');
  const path = { params: { path: { alert_id: a.id } } };
  return (
    <li class={`alert sev-${a.severity}`}>
      <div class="alert-head">
        <strong class="impact">{pounds(a.impact_gbp_per_day, al.perDay)}</strong>
        <span class={`badge sev-${a.severity}`}>{a.severity}</span>
        <span>{a.title}</span>
      </div>
      <p class="small">
        {a.source} · {a.site_id ?? al.noSite}
        {a.asset_id ? ` / ${a.asset_id}` : ''} · {al.raised(when(a.raised_at))}
        {a.acknowledged_at ? al.acknowledgedAt(when(a.acknowledged_at)) : al.notAcknowledged}
        {a.assigned_to ? al.assignedTo(a.assigned_to === me ? null : a.assigned_to) : al.unassigned}
      </p>
      <p class="small">{a.impact_method}</p>
      <div class="actions">
        <button
          type="button"
          disabled={!!a.acknowledged_at}
          onClick={() => act(al.didAcknowledge(a.title), () => api().POST('/api/hardware/admin/alerts-history/{alert_id}/acknowledge', { ...path, body: {} }))}
        >
          {a.acknowledged_at ? al.acknowledged : al.acknowledge}
        </button>
        <label>
          <span class="sr-only">{al.assignLabel(a.title)}</span>
          <input placeholder={al.userId} value={assignee} onInput={(e) => setAssignee(e.currentTarget.value)} />
        </label>
        <button
          type="button"
          onClick={() =>
            act(al.didAssign(a.title), () =>
              api().POST('/api/hardware/admin/alerts-history/{alert_id}/assign', { ...path, body: { user_id: assignee || me! } }),
            )
          }
          disabled={!assignee && !me}
        >
          {assignee ? al.assign : al.assignToMe}
        </button>
        <label>
          <span class="sr-only">{al.reasonLabel(a.title)}</span>
          <input placeholder={al.reason} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </label>
        <button
          type="button"
          disabled={!reason.trim()}
          onClick={() => act(al.didResolve(a.title), () => api().POST('/api/hardware/admin/alerts-history/{alert_id}/resolve', { ...path, body: { reason } }))}
        >
          {al.resolve}
        </button>
        {dispatch && (
          <button
            type="button"
            onClick={() =>
              act(al.didCreateOrder(a.title), async () => {
                await api().POST('/api/hardware/field/work-orders/from-alert/{alert_id}', path);
                void queryClient.invalidateQueries({ queryKey: ['work-orders'] });
              })
            }
          >
            {al.createOrder}
          </button>
        )}
      </div>
    </li>
  );
}

/** Whether the organisation has the field module (work orders): its list answers rather than 403 Module not enabled. */
async function fieldOn(): Promise<boolean> {
  const ops = await declaredOperations();
  if (!ops.has('POST /api/hardware/field/work-orders/from-alert/{alert_id}')) return false;
  try {
    await data(api().GET('/api/hardware/field/work-orders', { params: { query: { limit: 1 } } }));
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return false;
    throw err;
  }
}
