// The one verified setpoint write (demo realm rule 2): the command as the device takes it, read
// back independently at the settle instant, a verdict, a decision in the log; refused while an
// override holds the site or device for any writer but a person.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { actorId, RULES, type DecisionLogService } from './decisions.ts';
import type { DemoModel } from './demo-model.ts';
import { errors } from '../../platform/errors.ts';
import { controlErrors } from './errors.ts';
import {
  CONTROLLABLE,
  DEFAULT_SETTLE_SECONDS,
  SLOW_APPLY_SECONDS,
  TOLERANCE_KW,
  measure,
  round3,
  verdictOf,
  type Behaviour,
  type DeviceKind,
  type DeviceState,
  type Verdict,
} from './model.ts';
import type { Overrides } from './overrides.ts';
import { isDemo } from './sites.ts';
import { configStore, demoStore, setpointStore, type SetpointRow } from './store.ts';

export interface SetpointInput {
  site_id: string;
  device_id: string;
  value_kw: number;
  /** Who asks: a person (`manual`), the export limitation loop or the optimiser. */
  source?: 'manual' | 'export_limit' | 'optimiser';
  settle_seconds?: number;
  /** The decision that asked for this write (the loop's or a plan's), kept in the log. */
  requested_by_decision?: string | null;
}

export interface SetpointResult {
  setpoint_id: string;
  decision_id: string;
  site_id: string;
  device_id: string;
  kind: DeviceKind;
  value_kw: number;
  source: string;
  verdict: Verdict;
  accepted: boolean | null;
  expected_kw: number | null;
  readback_kw: number | null;
  settle_seconds: number;
  commanded_at: string;
  read_at: string;
  reason: string;
}

const setpointView = (s: SetpointRow, kind?: DeviceKind) => ({
  setpoint_id: s.setpoint_id,
  decision_id: s.decision_id,
  site_id: s.site_id,
  device_id: s.device_id,
  ...(kind && { kind }),
  value_kw: Number(s.value_kw),
  source: s.source,
  verdict: s.verdict as Verdict,
  accepted: s.accepted,
  expected_kw: s.expected_kw === null ? null : Number(s.expected_kw),
  readback_kw: s.readback_kw === null ? null : Number(s.readback_kw),
  settle_seconds: Number(s.settle_seconds),
  commanded_at: isoTime(s.commanded_at),
  read_at: isoTime(s.read_at),
  reason: s.reason,
  actor: s.actor,
});

export function createSetpoints(deps: { db: Db; clock: Clock; cursors: CursorCodec; decisions: DecisionLogService; model: DemoModel; overrides: Overrides }) {
  const { db, clock, cursors, decisions, model, overrides } = deps;

  async function writeSetpoint(q: Queryable, orgId: string, input: SetpointInput, actor: string | null): Promise<SetpointResult> {
    if (!isDemo(orgId)) throw errors.demoRealmOnly();
    const source = input.source ?? 'manual';
    const now = clock.now();
    const t = now.getTime();
    const siteOfDevice = await demoStore.deviceSite(q, orgId, input.device_id);
    if (siteOfDevice === null) throw controlErrors.deviceNotFound();
    if (siteOfDevice !== input.site_id)
      throw controlErrors.field(['body', 'device_id'], `The device belongs to site '${siteOfDevice}', not '${input.site_id}'`, input.device_id);
    let site = await model.lockedModel(q, orgId, input.site_id, t);
    const idx = site.devices.findIndex((d) => d.device_id === input.device_id);
    const device = site.devices[idx]!;
    if (!CONTROLLABLE.includes(device.kind))
      throw controlErrors.field(['body', 'device_id'], `A ${device.kind} takes no setpoint; controllable kinds: ${CONTROLLABLE.join(', ')}`, input.device_id);
    const lo = device.kind === 'battery' ? -device.rated_kw : 0;
    if (input.value_kw < lo || input.value_kw > device.rated_kw) {
      throw controlErrors.field(['body', 'value_kw'], `Out of the device's range ${lo} to ${device.rated_kw} kW`, input.value_kw);
    }
    if (source !== 'manual') {
      const ov = await overrides.overridesOn(q, orgId, input.site_id, now);
      if (ov.site || ov.devices.includes(device.device_id)) throw controlErrors.overrideActive();
    }
    const settle = input.settle_seconds ?? (await configStore.get(q, orgId, input.site_id))?.settle_seconds ?? DEFAULT_SETTLE_SECONDS;
    const readAt = t + settle * 1000;
    const value = round3(input.value_kw);

    // The command as the device takes it.
    const b: Behaviour = device.behaviour;
    const response = b === 'rejects' ? 'rejected' : b === 'unreachable' ? 'no_answer' : 'accepted';
    const applies = b === 'normal' ? t : b === 'slow' ? t + SLOW_APPLY_SECONDS * 1000 : null;
    const commanded: DeviceState = { ...device, pending_kw: value, pending_at: t };
    if (applies !== null) site = { ...site, devices: site.devices.map((d, i) => (i === idx ? { ...d, pending_kw: value, pending_at: applies } : d)) };
    // Read back independently at the settle instant: the model as it is, against the model had the
    // device applied the command at once.
    const expected =
      response === 'accepted' ? measure({ ...site, devices: site.devices.map((d, i) => (i === idx ? commanded : d)) }, readAt).devices[idx]!.power_kw : null;
    const readback = response === 'no_answer' ? null : measure(site, readAt).devices[idx]!.power_kw;
    const inputs = { response, expected_kw: expected, readback_kw: readback, tolerance_kw: TOLERANCE_KW } as const;
    const { verdict, reason } = verdictOf(inputs);
    await demoStore.save(q, orgId, input.site_id, site);

    const setpoint_id = randomUUID();
    const decision_id = await decisions.recordDecision(
      q,
      orgId,
      {
        site_id: input.site_id,
        kind: 'setpoint',
        rule: RULES.setpoint,
        inputs,
        output: { verdict, reason },
        outcome: {
          setpoint_id,
          device_id: device.device_id,
          kind: device.kind,
          value_kw: value,
          source,
          behaviour: b,
          settle_seconds: settle,
          requested_by_decision: input.requested_by_decision ?? null,
        },
        actor,
      },
      now,
    );
    const row: SetpointRow = {
      setpoint_id,
      site_id: input.site_id,
      device_id: device.device_id,
      value_kw: value,
      source,
      verdict,
      accepted: response === 'accepted' ? true : response === 'rejected' ? false : null,
      expected_kw: expected,
      readback_kw: inputs.readback_kw,
      settle_seconds: settle,
      commanded_at: now,
      read_at: new Date(readAt),
      reason,
      decision_id,
      actor,
    };
    await setpointStore.insert(q, orgId, row);
    const { actor: _a, ...view } = setpointView(row, device.kind);
    return view as SetpointResult;
  }

  return {
    writeSetpoint,

    async setpoint(ctx: RequestContext, body: SetpointInput) {
      return db.tx((q) => writeSetpoint(q, ctx.orgId, { ...body, source: 'manual' }, actorId(ctx)));
    },

    async setpoints(ctx: RequestContext, query: { site_id?: string; device_id?: string; verdict?: string; limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = {
        op: 'listControlSetpoints',
        orgId: ctx.orgId,
        filters: { s: query.site_id ?? null, d: query.device_id ?? null, v: query.verdict ?? null },
      };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await setpointStore.page(db, ctx.orgId, {
        siteId: query.site_id,
        deviceId: query.device_id,
        verdict: query.verdict,
        limit,
        before: paged.after,
      });
      const page = paged.page(rows, (r) => ({ t: r.pos, id: r.setpoint_id }));
      return { setpoints: page.items.map((r) => setpointView(r)), next_cursor: page.next_cursor, has_more: page.has_more };
    },
  };
}

export type Setpoints = ReturnType<typeof createSetpoints>;
