// Platform status and incidents (decision 0224). Component health comes from devtools' recorded
// health checks (PLATFORM_HEALTH); incidents are platform-wide, read by members of every
// organisation and written by platform administrators, with a one-way state order.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { PlatformHealth } from '../devtools/index.ts';
import { incidentStore, type IncidentRow, type UpdateRow } from './store.ts';

export const STATES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentState = (typeof STATES)[number];
export const IMPACTS = ['minor', 'major', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

/** States an incident in `from` may move to: itself (a further update) or any later state; none once resolved. */
export function allowedMoves(from: IncidentState): IncidentState[] {
  if (from === 'resolved') return [];
  return STATES.slice(STATES.indexOf(from)) as IncidentState[];
}

const declared = declareErrors({
  notFound: { status: 404, detail: 'Incident not found', code: 'incident_not_found', doc: 'No incident with this id.' },
  stateNotAllowed: {
    status: 409,
    detail: (from: string, to: string, allowed: readonly string[]) =>
      allowed.length === 0
        ? `Incident is resolved; resolved is final and takes no further updates`
        : `Cannot move an incident from ${from} to ${to}; allowed: ${allowed.join(', ')}`,
    code: 'incident_state_not_allowed',
    doc: 'The state move is outside investigating → identified → monitoring → resolved; the detail names the allowed states. Resolved is final.',
  },
});

export const STATUS_ERROR_DOCS = declared.docs;
const { notFound, stateNotAllowed } = declared.errors;

function present(i: IncidentRow, updates: UpdateRow[]) {
  return {
    id: i.id,
    title: i.title,
    impact: i.impact as Impact,
    affected_components: i.affected_components,
    state: i.state as IncidentState,
    started_at: isoTime(i.started_at),
    resolved_at: isoTimeOrNull(i.resolved_at),
    updated_at: isoTime(i.updated_at),
    updates: updates
      .filter((u) => u.incident_id === i.id)
      .sort((a, b) => b.seq - a.seq)
      .map((u) => ({ id: u.id, state: u.state as IncidentState, impact: u.impact as Impact, message: u.message, created_at: isoTime(u.created_at) })),
  };
}
export type Incident = ReturnType<typeof present>;

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : 'unknown');

export function createStatus(deps: { db: Db; clock: Clock; health: PlatformHealth }) {
  const { db, clock, health } = deps;
  const componentNames = new Set(health.components.map((c) => c.name));

  async function list(filter: 'open' | 'resolved' | 'all', limit: number): Promise<Incident[]> {
    const rows = await incidentStore.list(db, filter, limit);
    const updates = await incidentStore.updatesOf(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => present(r, updates));
  }

  return {
    list,

    async status() {
      const h = await health.status();
      const open = await list('open', 200);
      return {
        ...h,
        components: h.components.map((c) => ({ ...c, open_incidents: open.filter((i) => i.affected_components.includes(c.name)).map((i) => i.id) })),
        open_incidents: open,
      };
    },

    async create(ctx: RequestContext, body: { title: string; impact: Impact; affected_components: string[]; message: string }) {
      const unknown = body.affected_components.flatMap((c, n) =>
        componentNames.has(c) ? [] : [fieldError(['body', 'affected_components', n], `unknown component; one of ${[...componentNames].join(', ')}`, c)],
      );
      if (unknown.length) throw errors.validation(unknown);
      const now = clock.now();
      const row: IncidentRow = {
        id: `inc_${randomUUID()}`,
        title: body.title,
        impact: body.impact,
        affected_components: [...new Set(body.affected_components)],
        state: 'investigating',
        started_at: now,
        resolved_at: null,
        updated_at: now,
      };
      const update = { id: `upd_${randomUUID()}`, incident_id: row.id, state: row.state, impact: row.impact, message: body.message, created_at: now };
      await db.tx(async (q) => {
        await incidentStore.insert(q, row, actorId(ctx));
        await incidentStore.addUpdate(q, update, actorId(ctx));
      });
      return present(row, [{ ...update, seq: 1 }]);
    },

    async addUpdate(ctx: RequestContext, id: string, body: { state: IncidentState; message: string; impact?: Impact }) {
      const now = clock.now();
      const incidentId = await db.tx(async (q) => {
        const cur = await incidentStore.lockOne(q, id);
        if (!cur) throw notFound();
        const allowed = allowedMoves(cur.state as IncidentState);
        if (!allowed.includes(body.state)) throw stateNotAllowed(cur.state, body.state, allowed);
        const impact = body.impact ?? (cur.impact as Impact);
        await incidentStore.setState(q, id, body.state, impact, body.state === 'resolved' ? now : null, now);
        await incidentStore.addUpdate(
          q,
          { id: `upd_${randomUUID()}`, incident_id: id, state: body.state, impact, message: body.message, created_at: now },
          actorId(ctx),
        );
        return cur.id;
      });
      const rows = await incidentStore.one(db, incidentId);
      return present(rows!, await incidentStore.updatesOf(db, [incidentId]));
    },
  };
}
export type StatusService = ReturnType<typeof createStatus>;
