// Field work orders: the dispatch list (most urgent SLA first, as the service orders it), each
// order's response and resolution clocks, assign, and progress through the transitions the
// service allows now. Work orders are created from an alert on the Alerts screen.
import { useState } from 'preact/hooks';
import { api, data, type Schemas } from '../api.ts';
import { when } from '../format.ts';
import { DateTimeField, Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { queryClient, useMutation, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { msg } from '../messages.ts';

const f = msg.field;

type WorkOrder = Schemas['FieldWorkOrderSummary'];
type Clock = WorkOrder['sla']['response'];
type Status = WorkOrder['status'];
type Risk = WorkOrder['sla']['risk'];

const RISKS: ReadonlyArray<Risk | null> = [null, 'breached', 'at_risk', 'ok'];
/** SLA clocks move with time: the list is read again this often while open. */
const LIST_EVERY_MS = 30_000;

export function Field() {
  const wanted = useRoute().params.get('risk');
  const risk = RISKS.find((r) => r === wanted) ?? null;
  const list = useRead(
    ['work-orders', risk],
    () => data(api().GET('/api/hardware/field/work-orders', { params: { query: { limit: 100, ...(risk && { sla_risk: risk }) } } })),
    { refetchInterval: LIST_EVERY_MS },
  );
  const me = useRead(['me'], () => data(api().GET('/api/auth/me')), { staleTime: Number.POSITIVE_INFINITY });
  const items = list.data?.work_orders ?? [];
  return (
    <Section title={f.title} id="field-title">
      <div class="tabs" role="group" aria-label={f.riskGroup}>
        {RISKS.map((r) => (
          <button key={r ?? 'all'} type="button" aria-pressed={risk === r} onClick={() => select({ risk: r })}>
            {f.riskTab[r ?? 'all']}
          </button>
        ))}
      </div>
      {list.loading && <Loading what={f.loading} />}
      <ErrorNote error={list.error} retry={list.reload} />
      {list.data && items.length === 0 && <Empty>{risk ? f.emptyRisk : f.empty}</Empty>}
      {items.length > 0 && (
        <ol class="alerts" aria-label={f.listLabel}>
          {items.map((w) => (
            <OrderItem key={w.id} w={w} me={me.data?.user_id ?? null} />
          ))}
        </ol>
      )}
    </Section>
  );
}

function ClockText({ name, c }: { name: string; c: Clock }) {
  const target = c.target_minutes >= 120 ? `${c.target_minutes / 60} h` : `${c.target_minutes} min`;
  const elapsed = Math.round(c.elapsed_seconds / 60);
  return (
    <span class={`clock clock-${c.state}`}>
      {name}: <strong>{f.clockState[c.state]}</strong> · {f.elapsed(elapsed, c.target_minutes, target)}
      {c.paused ? f.paused : c.running && c.due_at ? f.due(when(c.due_at)) : c.stopped_at ? f.stopped(when(c.stopped_at)) : ''}
    </span>
  );
}

function OrderItem({ w, me }: { w: WorkOrder; me: string | null }) {
  const [assignee, setAssignee] = useState('');
  const [visit, setVisit] = useState('');
  const path = { params: { path: { work_order_id: w.id } } };
  const done = () => void queryClient.invalidateQueries({ queryKey: ['work-orders'] });
  const assign = useMutation<unknown, string>({
    mutationFn: (user) => data(api().POST('/api/hardware/field/work-orders/{work_order_id}/assign', { ...path, body: { user_id: user } })),
    onSuccess: done,
  });
  const move = useMutation<unknown, Status>({
    mutationFn: (to) =>
      data(
        api().POST('/api/hardware/field/work-orders/{work_order_id}/transition', {
          ...path,
          body: { to, ...(to === 'scheduled' && visit && { scheduled_for: visit }) },
        }),
      ),
    onSuccess: done,
  });
  return (
    <li class={`alert risk-${w.sla.risk}`}>
      <div class="alert-head">
        <span class={`badge risk-${w.sla.risk}`}>{f.riskBadge[w.sla.risk]}</span>
        <span class="badge">{w.priority}</span>
        <strong>{w.description}</strong>
        <span class="badge">{w.status.replace('_', ' ')}</span>
      </div>
      <p class="small">
        {w.kind} · {w.site_id ?? f.noSite}
        {w.asset_id ? ` / ${w.asset_id}` : ''} · {f.created(when(w.created_at))} ·{' '}
        {w.assignee_id ? f.assignedTo(w.assignee_id === me ? null : w.assignee_id) : f.unassigned}
        {w.scheduled_for ? f.visit(when(w.scheduled_for)) : ''}
        {f.source[w.source.type] ?? ''}
      </p>
      <p class="small">
        <ClockText name={f.response} c={w.sla.response} />
        <br />
        <ClockText name={f.resolution} c={w.sla.resolution} />
      </p>
      <div class="actions">
        <label>
          <span class="sr-only">{f.assignLabel(w.description)}</span>
          <input placeholder={f.userId} value={assignee} onInput={(e) => setAssignee(e.currentTarget.value)} />
        </label>
        <button type="button" disabled={(!assignee && !me) || assign.isPending} onClick={() => assign.mutate(assignee || me!)}>
          {assignee ? f.assign : f.assignToMe}
        </button>
        {w.allowed_transitions.includes('scheduled') && <DateTimeField id={`visit-${w.id}`} label={f.visitLabel(w.description)} onChange={setVisit} />}
        {w.allowed_transitions.map((to) => (
          <button key={to} type="button" disabled={move.isPending || (to === 'scheduled' && !visit)} onClick={() => move.mutate(to)}>
            {f.move[to]}
          </button>
        ))}
      </div>
      <ErrorNote error={assign.error ?? move.error} />
    </li>
  );
}
