// Model-based test (fast-check): random sequences of transitions (valid and not), holds, priority
// changes, assignments (to members and strangers) and clock moves, driven through HTTP against an
// independent model of the state machine and of the SLA clocks (counted minute by minute on the
// model calendar of uk-model.ts). Every answer, every read and every stored clock is checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { json, startTestService, type TestService } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { counts, type ModelCalendar } from './uk-model.ts';

const B = '/api/hardware/field';
const ORG = 'fld-model';
const MIN = 60_000;

type Status = 'new' | 'assigned' | 'scheduled' | 'in_progress' | 'on_hold' | 'completed' | 'verified' | 'cancelled';
type Priority = 'critical' | 'high' | 'medium' | 'low';
const STATUSES: Status[] = ['new', 'assigned', 'scheduled', 'in_progress', 'on_hold', 'completed', 'verified', 'cancelled'];
const PRIORITIES: Priority[] = ['critical', 'high', 'medium', 'low'];

interface Policy extends ModelCalendar {
  response_minutes: number;
  resolution_minutes: number;
  pause_on_hold: boolean;
  at_risk_percent: number;
}

/** The organisation's policies (set through the API in `before`): both measures, pausing and not. */
const POLICIES: Record<Priority, Policy> = {
  critical: {
    response_minutes: 60,
    resolution_minutes: 480,
    measure: 'calendar_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: false,
    at_risk_percent: 75,
  },
  high: {
    response_minutes: 240,
    resolution_minutes: 1440,
    measure: 'calendar_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: true,
    at_risk_percent: 50,
  },
  medium: {
    response_minutes: 600,
    resolution_minutes: 1800,
    measure: 'business_hours',
    business_day_start: '08:00',
    business_day_end: '18:00',
    pause_on_hold: true,
    at_risk_percent: 75,
  },
  low: {
    response_minutes: 120,
    resolution_minutes: 600,
    measure: 'business_hours',
    business_day_start: '09:00',
    business_day_end: '17:30',
    pause_on_hold: false,
    at_risk_percent: 80,
  },
};

/** The moves the transition operation allows (the model's own copy of the state machine). */
const MOVES: Record<Status, Status[]> = {
  new: ['cancelled'],
  assigned: ['scheduled', 'in_progress', 'on_hold', 'cancelled'],
  scheduled: ['in_progress', 'on_hold', 'cancelled'],
  in_progress: ['on_hold', 'completed', 'cancelled'],
  on_hold: ['in_progress', 'scheduled', 'cancelled'],
  completed: ['verified', 'in_progress'],
  verified: [],
  cancelled: [],
};
const OPEN: Status[] = ['new', 'assigned', 'scheduled', 'in_progress', 'on_hold'];

interface Model {
  status: Status;
  priority: Priority;
  assignee: string | null;
  created: number;
  timeline: { at: number; status: Status }[];
  /** When the stored clocks were last computed (status, assignment or priority change). */
  computedAt: number;
}

interface ModelClock {
  elapsed: number; // minutes
  running: boolean;
  stoppedAt: number | null;
  cancelled: boolean;
  dueAt: number | null;
  riskAt: number | null;
}

function runsIn(clock: 'response' | 'resolution', s: Status, responded: boolean, p: Policy): boolean {
  const active =
    clock === 'response' ? !responded && ['new', 'assigned', 'scheduled'].includes(s) : ['new', 'assigned', 'scheduled', 'in_progress'].includes(s);
  const held = s === 'on_hold' && !p.pause_on_hold && (clock === 'resolution' || !responded);
  return active || held;
}

/** The clock at `now`, walking the timeline minute by minute (and beyond `now` for the projection). */
function modelClock(m: Model, clock: 'response' | 'resolution', now: number): ModelClock {
  const p = POLICIES[m.priority];
  const target = clock === 'response' ? p.response_minutes : p.resolution_minutes;
  const risk = (target * p.at_risk_percent) / 100;
  let acc = 0;
  let dueAt: number | null = null;
  let riskAt: number | null = null;
  let responded = false;
  let idx = 0;
  const statusAt = (t: number) => {
    while (idx + 1 < m.timeline.length && m.timeline[idx + 1].at <= t) {
      idx++;
    }
    return m.timeline[idx].status;
  };
  const firstInProgress = m.timeline.find((e) => e.status === 'in_progress')?.at ?? Infinity;
  for (let t = m.created; t < now; t += MIN) {
    const s = statusAt(t);
    responded = t >= firstInProgress;
    if (runsIn(clock, s, responded, p) && counts(p, t)) {
      acc++;
      if (riskAt === null && acc >= risk) riskAt = t + MIN;
      if (dueAt === null && acc >= target) dueAt = t + MIN;
    }
  }
  const s = m.status;
  responded = m.timeline.some((e) => e.status === 'in_progress');
  const running = runsIn(clock, s, responded, p);
  if (running) {
    let a = acc;
    for (let t = now; dueAt === null || riskAt === null; t += MIN) {
      if (counts(p, t)) {
        a++;
        if (riskAt === null && a >= risk) riskAt = t + MIN;
        if (dueAt === null && a >= target) dueAt = t + MIN;
      }
    }
  }
  let stoppedAt: number | null = null;
  let cancelled = false;
  if (clock === 'response') stoppedAt = m.timeline.find((e) => e.status === 'in_progress')?.at ?? null;
  else if (s === 'completed' || s === 'verified') stoppedAt = [...m.timeline].reverse().find((e) => e.status === 'completed')!.at;
  if (stoppedAt === null && s === 'cancelled') {
    stoppedAt = m.timeline.at(-1)!.at;
    cancelled = true;
  }
  return { elapsed: acc, running, stoppedAt, cancelled, dueAt, riskAt };
}

function modelState(c: ModelClock, now: number): string {
  if (c.dueAt !== null && c.dueAt <= now) return 'breached';
  if (c.stoppedAt !== null) return c.cancelled ? 'cancelled' : 'met';
  if (c.riskAt !== null && c.riskAt <= now) return 'at_risk';
  return 'ok';
}

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

let svc: TestService;
let clock: ManualClock;
let admin: string;
let member: string;
let stranger: string;
let runs = 0;

before(async () => {
  clock = new ManualClock('2026-03-20T09:00:00Z');
  svc = await startTestService({ clock });
  await svc.createOrg(ORG, ['field']);
  await svc.createOrg('fld-model-other', ['field']);
  const adminUser = await svc.createUser(ORG, 'admin@model.test', 'ORG_ADMIN');
  admin = await svc.token({ orgId: ORG, roles: ['ORG_ADMIN'], userId: adminUser.id, expiresIn: '3650d' });
  member = (await svc.createUser(ORG, 'eng@model.test', 'OPERATOR')).id;
  stranger = (await svc.createUser('fld-model-other', 'x@model.test', 'OPERATOR')).id;
  for (const p of PRIORITIES) {
    const { response_minutes, resolution_minutes, measure, business_day_start, business_day_end, pause_on_hold, at_risk_percent } = POLICIES[p];
    const res = await svc.request({
      method: 'PUT',
      url: `${B}/sla-policies/${p}`,
      headers: { authorization: `Bearer ${admin}` },
      payload: { response_minutes, resolution_minutes, measure, business_day_start, business_day_end, pause_on_hold, at_risk_percent },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
});
after(() => svc.stop());

type Command =
  | { kind: 'advance'; minutes: number }
  | { kind: 'transition'; to: Status }
  /** A move the model allows from wherever the work order is (the pick-th of them). */
  | { kind: 'move'; pick: number }
  | { kind: 'priority'; to: Priority }
  | { kind: 'assign'; who: 'member' | 'stranger' };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.oneof(fc.integer({ min: 1, max: 240 }), fc.integer({ min: 240, max: 4 * 1440 })).map((minutes) => ({ kind: 'advance' as const, minutes })),
  },
  { weight: 2, arbitrary: fc.constantFrom(...STATUSES).map((to) => ({ kind: 'transition' as const, to })) },
  { weight: 5, arbitrary: fc.nat(11).map((pick) => ({ kind: 'move' as const, pick })) },
  { weight: 2, arbitrary: fc.constantFrom(...PRIORITIES).map((to) => ({ kind: 'priority' as const, to })) },
  { weight: 2, arbitrary: fc.constantFrom('member' as const, 'stranger' as const).map((who) => ({ kind: 'assign' as const, who })) },
);

/** Starts near the clock changes, Easter and Christmas, on whole minutes. */
const start = fc
  .tuple(
    fc.constantFrom('2026-03-27T15:00:00Z', '2026-10-23T14:00:00Z', '2026-12-23T16:00:00Z', '2026-04-02T10:00:00Z', '2026-06-10T07:00:00Z'),
    fc.integer({ min: 0, max: 1440 }),
  )
  .map(([a, off]) => Date.parse(a) + off * MIN);

const req = (method: string, url: string, payload?: object) =>
  svc.request({ method: method as 'GET', url, headers: { authorization: `Bearer ${admin}` }, ...(payload && { payload }) });

async function check(m: Model, id: string, site: string) {
  const now = clock.now().getTime();
  const res = await req('GET', `${B}/work-orders/${id}`);
  assert.equal(res.statusCode, 200, res.body);
  const w = json(res);
  assert.equal(w.status, m.status);
  assert.equal(w.priority, m.priority);
  assert.equal(w.assignee_id, m.assignee);
  assert.deepEqual(w.allowed_transitions, MOVES[m.status]);
  const states: string[] = [];
  // The stored clocks, as of the last recomputation: one read of the row.
  const row = (await svc.deps.db.query(`select * from field_work_orders where org_id = $1 and id = $2`, [ORG, id])).rows[0] as Record<string, unknown>;
  const t = (v: unknown) => (v === null ? null : new Date(v as string).toISOString());
  for (const name of ['response', 'resolution'] as const) {
    const c = modelClock(m, name, now);
    const got = w.sla[name];
    const state = modelState(c, now);
    states.push(state);
    assert.deepEqual(
      {
        elapsed: got.elapsed_seconds,
        running: got.running,
        paused: got.paused,
        due: got.due_at,
        risk: got.at_risk_at,
        stopped: got.stopped_at,
        state: got.state,
      },
      {
        elapsed: c.elapsed * 60,
        running: c.running,
        paused: !c.running && c.stoppedAt === null,
        due: iso(c.dueAt),
        risk: iso(c.riskAt),
        stopped: iso(c.stoppedAt),
        state,
      },
      `${name} clock at ${iso(now)}`,
    );
    const at = modelClock(m, name, m.computedAt);
    assert.deepEqual(
      {
        computed: t(row.sla_computed_at),
        elapsed: Number(row[`${name}_elapsed_ms`]),
        running: row[`${name}_running`],
        due: t(row[`${name}_due_at`]),
        risk: t(row[`${name}_risk_at`]),
        stopped: t(row[`${name}_stopped_at`]),
      },
      { computed: iso(m.computedAt), elapsed: at.elapsed * MIN, running: at.running, due: iso(at.dueAt), risk: iso(at.riskAt), stopped: iso(at.stoppedAt) },
      `stored ${name} clock`,
    );
  }
  const risk = states.includes('breached') ? 'breached' : states.includes('at_risk') ? 'at_risk' : 'ok';
  assert.equal(w.sla.risk, risk);
  // Each run has a site of its own: the dispatch list filtered by it and by the risk holds just this work order.
  const listed = json(await req('GET', `${B}/work-orders?sla_risk=${risk}&site_id=${site}`));
  assert.deepEqual(
    listed.work_orders.map((x: { id: string }) => x.id),
    [id],
    `listed under sla_risk=${risk}`,
  );
}

test('random transitions, holds, priority changes and clock moves agree with the model of the state machine and the SLA clocks', async () => {
  await fc.assert(
    fc.asyncProperty(start, fc.constantFrom(...PRIORITIES), fc.array(command, { minLength: 1, maxLength: 12 }), async (t0, priority, commands) => {
      clock.set(new Date(t0).toISOString());
      const site = `M-${++runs}`;
      const reg = await req('POST', '/api/twin/registry/assets', {
        asset_id: `m-${runs}`,
        site_id: site,
        type: 'inverter',
        name: 'm',
        asset_class: 'inverter',
        details: {},
      });
      assert.equal(reg.statusCode, 201, reg.body);
      const created = await req('POST', `${B}/work-orders`, { site_id: site, priority, kind: 'corrective', description: 'model' });
      assert.equal(created.statusCode, 201, created.body);
      const id = json(created).id as string;
      const m: Model = { status: 'new', priority, assignee: null, created: t0, timeline: [{ at: t0, status: 'new' }], computedAt: t0 };
      await check(m, id, site);
      for (const cmd of commands) {
        const now = clock.now().getTime();
        const moves = MOVES[m.status];
        // A 'move' is the transition to one of the allowed statuses (to the member's assignment from new).
        const c: Command =
          cmd.kind !== 'move'
            ? cmd
            : m.status === 'new'
              ? { kind: 'assign', who: 'member' }
              : moves.length
                ? { kind: 'transition', to: moves[cmd.pick % moves.length] }
                : { kind: 'advance', minutes: 30 };
        if (c.kind === 'advance') {
          clock.set(new Date(now + c.minutes * MIN).toISOString());
        } else if (c.kind === 'transition') {
          const res = await req('POST', `${B}/work-orders/${id}/transition`, {
            to: c.to,
            ...(c.to === 'scheduled' && { scheduled_for: new Date(now + 3_600_000).toISOString() }),
          });
          if (MOVES[m.status].includes(c.to)) {
            assert.equal(res.statusCode, 200, res.body);
            m.status = c.to;
            m.timeline.push({ at: now, status: c.to });
            m.computedAt = now;
          } else {
            assert.equal(res.statusCode, 409, res.body);
            const allowed = MOVES[m.status];
            assert.match(
              json(res).detail,
              new RegExp(
                `^Cannot move a work order from ${m.status} to ${c.to}; allowed: ${allowed.length ? allowed.join(', ') : `none \\(${m.status} is final\\)`}`,
              ),
            );
          }
        } else if (c.kind === 'priority') {
          const res = await req('POST', `${B}/work-orders/${id}/priority`, { priority: c.to });
          if (!OPEN.includes(m.status)) assert.equal(res.statusCode, 409, res.body);
          else {
            assert.equal(res.statusCode, 200, res.body);
            if (c.to !== m.priority) {
              m.priority = c.to;
              m.computedAt = now;
            }
          }
        } else if (c.kind === 'assign') {
          const res = await req('POST', `${B}/work-orders/${id}/assign`, { user_id: c.who === 'member' ? member : stranger });
          if (!OPEN.includes(m.status)) assert.equal(res.statusCode, 409, res.body);
          else if (c.who === 'stranger') assert.equal(res.statusCode, 422, res.body);
          else {
            assert.equal(res.statusCode, 200, res.body);
            m.assignee = member;
            if (m.status === 'new') {
              m.status = 'assigned';
              m.timeline.push({ at: now, status: 'assigned' });
            }
            m.computedAt = now;
          }
        }
        await check(m, id, site);
      }
    }),
    { numRuns: 30 },
  );
});
