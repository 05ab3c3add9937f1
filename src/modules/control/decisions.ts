// The decision log: every control, optimisation and guardrail decision with its inputs, rule and
// outcome, and its replay on the recorded inputs with today's code (decision 0184). Other modules
// record theirs and register their replayers through DECISION_LOG (index.ts).
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { controlErrors } from './errors.ts';
import { decideExport, evaluateGuardrails, verdictOf, type ExportInputs } from './model.ts';
import { decisionStore, type DecisionRow } from './store.ts';

export const RULES = {
  setpoint: 'verified-setpoint-write/1',
  export_limit: 'export-limitation/1',
  guardrail: 'grid-guardrails/1',
} as const;
export type DecisionKind = 'setpoint' | 'export_limit' | 'guardrail' | 'optimisation';

export const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null);

/** A decision of another module (the optimiser) recorded in this log. */
export interface DecisionEntry {
  site_id: string;
  kind: DecisionKind;
  rule: string;
  inputs: unknown;
  output: unknown;
  outcome: unknown;
  actor?: string | null;
}

/** Replays a decision kind on its recorded inputs; other modules register theirs (optimisation). */
export type Replayer<I> = (inputs: I) => unknown;

/** A kind's replayer over the stored JSON: its decisions recorded the inputs it reads. */
export const onRecordedInputs =
  <I>(replay: Replayer<I>): Replayer<unknown> =>
  (inputs) =>
    replay(inputs as I);

export const decisionView = (d: DecisionRow) => ({
  decision_id: d.decision_id,
  site_id: d.site_id,
  kind: d.kind,
  rule: d.rule,
  inputs: d.inputs,
  output: d.output,
  outcome: d.outcome,
  actor: d.actor,
  created_at: isoTime(d.created_at),
});

/** Where two JSON values differ, by path (`$.rounds[0].commands[1].value_kw`). */
export function differences(a: unknown, b: unknown, path = '$'): { path: string; recorded: unknown; replayed: unknown }[] {
  if (a === b) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys]
      .sort()
      .flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`));
  }
  return [{ path, recorded: a ?? null, replayed: b ?? null }];
}

export function createDecisionLog(deps: { db: Db; clock: Clock; cursors: CursorCodec }) {
  const { db, clock, cursors } = deps;
  const replayers = new Map<string, Replayer<unknown>>([
    ['setpoint', onRecordedInputs(verdictOf)],
    ['export_limit', onRecordedInputs((i: { rounds: ExportInputs[] }) => ({ rounds: i.rounds.map((r) => decideExport(r)) }))],
    ['guardrail', onRecordedInputs(evaluateGuardrails)],
  ]);

  async function recordDecision(q: Queryable, orgId: string, e: DecisionEntry, at = clock.now()): Promise<string> {
    const decision_id = randomUUID();
    await decisionStore.insert(q, orgId, {
      decision_id,
      site_id: e.site_id,
      kind: e.kind,
      rule: e.rule,
      inputs: e.inputs,
      output: e.output,
      outcome: e.outcome,
      actor: e.actor ?? null,
      created_at: at,
    });
    return decision_id;
  }

  return {
    recordDecision,
    replayers,
    // ---- Decision log ----
    async decisions(ctx: RequestContext, query: { site_id?: string; kind?: string; limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listDecisions', orgId: ctx.orgId, filters: { s: query.site_id ?? null, k: query.kind ?? null } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await decisionStore.page(db, ctx.orgId, {
        siteId: query.site_id,
        kind: query.kind,
        limit,
        before: paged.after,
      });
      const page = paged.page(rows, (r) => ({ t: r.pos, id: r.decision_id }));
      return { decisions: page.items.map(decisionView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async decision(ctx: RequestContext, id: string) {
      const d = await decisionStore.get(db, ctx.orgId, id);
      if (!d) throw controlErrors.decisionNotFound();
      return decisionView(d);
    },

    async replay(ctx: RequestContext, id: string) {
      const d = await decisionStore.get(db, ctx.orgId, id);
      if (!d) throw controlErrors.decisionNotFound();
      const replayer = replayers.get(d.kind);
      if (!replayer) {
        return {
          decision_id: d.decision_id,
          kind: d.kind,
          rule: d.rule,
          replayable: false,
          same: null,
          recorded: d.output,
          replayed: null,
          differences: [],
          replayed_at: isoTime(clock.now()),
        };
      }
      const replayed = JSON.parse(JSON.stringify(replayer(d.inputs)));
      const diffs = differences(d.output, replayed);
      return {
        decision_id: d.decision_id,
        kind: d.kind,
        rule: d.rule,
        replayable: true,
        same: diffs.length === 0,
        recorded: d.output,
        replayed,
        differences: diffs,
        replayed_at: isoTime(clock.now()),
      };
    },
  };
}

export type DecisionLogService = ReturnType<typeof createDecisionLog>;
