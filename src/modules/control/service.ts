// Control: the synthetic device model of demo sites, the one verified setpoint write, the export
// limitation loop, per-site configuration, overrides and the decision log (concepts.md section 1,
// demo realm rules 1-3; decisions 0180-0186).
import type { JobUnits } from '../../platform/job-units.ts';
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { toPage } from '../../platform/cursor.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { realmForId } from '../orgs/index.ts';
import { ASSET_ID_PATTERN } from '../registry/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import type { TelemetryWriter } from '../telemetry/index.ts';
import { controlErrors } from './errors.ts';
import {
  CONTROLLABLE,
  SLOW_APPLY_SECONDS,
  TOLERANCE_KW,
  decideExport,
  evaluateGuardrails,
  measure,
  round3,
  step,
  verdictOf,
  type Behaviour,
  type Connection,
  type DeviceKind,
  type DeviceState,
  type ExportDecision,
  type ExportInputs,
  type SiteState,
  type Verdict,
} from './model.ts';
import {
  configStore,
  decisionStore,
  demoStore,
  eventStore,
  overrideStore,
  setpointStore,
  type ConfigRow,
  type DecisionRow,
  type OverrideRow,
  type SetpointRow,
} from './store.ts';

type TelemetryRow = Extract<ReturnType<TelemetryWriter['judge']>[number], { ok: true }>['row'];

export const LOOP_EVERY_MS = 30_000;
export const DEADBAND_KW = 0.3;
export const DEFAULT_SETTLE_SECONDS = 5;
export const DEFAULT_MARGIN_KW = 0.2;
export const LOOP_DESCRIPTION =
  "Export limitation runs every 30 seconds on the service's job queue for demo-realm sites only. It is cloud hosted, not type tested and not G100 certified: " +
  'it is not a substitute for a certified on-site export limitation scheme.';

export const RULES = {
  setpoint: 'verified-setpoint-write/1',
  export_limit: 'export-limitation/1',
  guardrail: 'grid-guardrails/1',
} as const;
export type DecisionKind = 'setpoint' | 'export_limit' | 'guardrail' | 'optimisation';

export const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null);

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

/** A connection agreement as sent: phases default to 1, the reference to null. */
type ConnectionIn = Omit<Connection, 'phases' | 'reference'> & { phases?: 1 | 3; reference?: string | null };

const siteView = (site: SiteState, t: number) => {
  const m = measure(site, t);
  return {
    boundary_kw: m.boundary_kw,
    import_kw: round3(Math.max(0, m.boundary_kw)),
    export_kw: round3(Math.max(0, -m.boundary_kw)),
    direction: m.boundary_kw > 0 ? ('import' as const) : m.boundary_kw < 0 ? ('export' as const) : ('balanced' as const),
    devices: site.devices.map((d, i) => ({
      device_id: d.device_id,
      kind: d.kind,
      behaviour: d.behaviour,
      controllable: CONTROLLABLE.includes(d.kind),
      power_kw: m.devices[i]!.power_kw,
      rated_kw: d.rated_kw,
      setpoint_kw: d.setpoint_kw,
      pending_kw: d.pending_kw,
      pending_at: isoTimeOrNull(d.pending_at),
      soc_pct: d.soc_pct,
      capacity_kwh: d.capacity_kwh,
    })),
  };
};

export function overrideView(o: OverrideRow, now: Date) {
  const status = o.revoked_at ? 'revoked' : new Date(o.expires_at) <= now ? 'expired' : 'active';
  return {
    override_id: o.override_id,
    site_id: o.site_id,
    device_id: o.device_id,
    reason: o.reason,
    authority: o.authority,
    status: status as 'active' | 'revoked' | 'expired',
    starts_at: isoTime(o.starts_at),
    expires_at: isoTime(o.expires_at),
    created_by: o.created_by,
    created_at: isoTime(o.created_at),
    revoked_at: isoTimeOrNull(o.revoked_at),
    revoked_by: o.revoked_by,
    revoke_reason: o.revoke_reason,
  };
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

/** The export-limitation loop's schedule (a unit per site). */
export const LOOP_KIND = 'control.export-limit';

export function createControl(deps: {
  db: Db;
  work: Db;
  clock: Clock;
  cursors: CursorCodec;
  registry: RegistrySites;
  writer: TelemetryWriter;
  units: Pick<JobUnits, 'each'>;
  log?: { warn(obj: object, msg: string): void };
}) {
  const { db, clock, cursors, registry } = deps;
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

  /** The realm follows from the organisation id (demo-*), so no store read is needed inside a transaction. */
  async function isDemo(orgId: string) {
    return realmForId(orgId) === 'demo';
  }

  /** A site is known by its device model, its control configuration or the registry. */
  async function siteKnown(q: Queryable, orgId: string, siteId: string) {
    if (await demoStore.site(q, orgId, siteId)) return true;
    if (await configStore.get(q, orgId, siteId)) return true;
    return registry.siteExists(q, orgId, siteId);
  }

  async function requireSite(q: Queryable, orgId: string, siteId: string) {
    if (!(await siteKnown(q, orgId, siteId))) throw controlErrors.siteNotFound();
  }

  async function overridesOn(q: Queryable, orgId: string, siteId: string, now: Date) {
    const active = await overrideStore.active(q, orgId, now, siteId);
    return { site: active.some((o) => o.device_id === null), devices: active.flatMap((o) => (o.device_id ? [o.device_id] : [])) };
  }

  /** The model locked and stepped to now (written back by the caller). */
  async function lockedModel(q: Queryable, orgId: string, siteId: string, now: number) {
    const site = await demoStore.site(q, orgId, siteId, { forUpdate: true });
    if (!site) throw controlErrors.noModel();
    return step(site, now);
  }

  // ---- The verified setpoint write ---------------------------------------------------------------

  async function writeSetpoint(q: Queryable, orgId: string, input: SetpointInput, actor: string | null): Promise<SetpointResult> {
    if (!(await isDemo(orgId))) throw controlErrors.demoOnly();
    const source = input.source ?? 'manual';
    const now = clock.now();
    const t = now.getTime();
    const siteOfDevice = await demoStore.deviceSite(q, orgId, input.device_id);
    if (siteOfDevice === null) throw controlErrors.deviceNotFound();
    if (siteOfDevice !== input.site_id)
      throw controlErrors.field(['body', 'device_id'], `The device belongs to site '${siteOfDevice}', not '${input.site_id}'`, input.device_id);
    let site = await lockedModel(q, orgId, input.site_id, t);
    const idx = site.devices.findIndex((d) => d.device_id === input.device_id);
    const device = site.devices[idx]!;
    if (!CONTROLLABLE.includes(device.kind))
      throw controlErrors.field(['body', 'device_id'], `A ${device.kind} takes no setpoint; controllable kinds: ${CONTROLLABLE.join(', ')}`, input.device_id);
    const lo = device.kind === 'battery' ? -device.rated_kw : 0;
    if (input.value_kw < lo || input.value_kw > device.rated_kw) {
      throw controlErrors.field(['body', 'value_kw'], `Out of the device's range ${lo} to ${device.rated_kw} kW`, input.value_kw);
    }
    if (source !== 'manual') {
      const ov = await overridesOn(q, orgId, input.site_id, now);
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
    const decision_id = await recordDecision(
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

  // ---- Export limitation ---------------------------------------------------------------------------

  function exportInputs(site: SiteState, t: number, cfg: ConfigRow, override: ExportInputs['override'], failed: string[]): ExportInputs {
    const m = measure(site, t);
    const at = (kind: DeviceKind) => site.devices.findIndex((d) => d.kind === kind);
    const bi = at('battery');
    const pi = at('pv');
    const bat = bi >= 0 ? site.devices[bi]! : null;
    const pv = pi >= 0 ? site.devices[pi]! : null;
    return {
      boundary_kw: m.boundary_kw,
      limit_kw: Number(cfg.export_limit_kw),
      margin_kw: Number(cfg.margin_kw),
      deadband_kw: DEADBAND_KW,
      override,
      failed,
      battery: bat
        ? { device_id: bat.device_id, power_kw: m.devices[bi]!.power_kw, setpoint_kw: bat.setpoint_kw, rated_kw: bat.rated_kw, soc_pct: bat.soc_pct }
        : null,
      pv: pv ? { device_id: pv.device_id, power_kw: m.devices[pi]!.power_kw, limit_kw: pv.setpoint_kw, rated_kw: pv.rated_kw } : null,
    };
  }

  /** One iteration on a site in the caller's transaction; null when a scheduled tick was taken already. */
  async function iterate(q: Queryable, orgId: string, siteId: string, trigger: 'schedule' | 'manual', actor: string | null) {
    const now = clock.now();
    const t = now.getTime();
    const cfg = await configStore.get(q, orgId, siteId);
    const event_id = randomUUID();
    const decision_id = randomUUID();
    const tickAt = trigger === 'schedule' ? new Date(Math.floor(t / LOOP_EVERY_MS) * LOOP_EVERY_MS) : null;
    if (trigger === 'schedule') {
      if (!cfg || !cfg.export_limit_enabled || cfg.export_limit_kw === null) return null;
      if (!(await demoStore.site(q, orgId, siteId))) return null;
      if (!(await eventStore.claimTick(q, orgId, siteId, tickAt!, event_id, decision_id, now))) return null;
    } else {
      if (!(await demoStore.site(q, orgId, siteId))) throw controlErrors.noModel();
      if (!cfg || cfg.export_limit_kw === null) throw controlErrors.notConfigured();
    }
    let site = await lockedModel(q, orgId, siteId, t);
    await demoStore.save(q, orgId, siteId, site);
    const override = await overridesOn(q, orgId, siteId, now);
    const before = measure(site, t).boundary_kw;
    const rounds: ExportInputs[] = [];
    const decisions: ExportDecision[] = [];
    const setpoints: { setpoint_id: string; device_id: string; value_kw: number; verdict: Verdict; why: string }[] = [];
    for (let round = 0; round < 2; round++) {
      const inputs = exportInputs(
        site,
        t,
        cfg!,
        override,
        setpoints.filter((x) => x.verdict !== 'verified').map((x) => x.device_id),
      );
      const d = decideExport(inputs);
      rounds.push(inputs);
      decisions.push(d);
      for (const c of d.commands) {
        const r = await writeSetpoint(
          q,
          orgId,
          {
            site_id: siteId,
            device_id: c.device_id,
            value_kw: c.value_kw,
            source: 'export_limit',
            settle_seconds: cfg!.settle_seconds,
            requested_by_decision: decision_id,
          },
          actor,
        );
        setpoints.push({ setpoint_id: r.setpoint_id, device_id: c.device_id, value_kw: c.value_kw, verdict: r.verdict, why: c.why });
      }
      site = (await demoStore.site(q, orgId, siteId))!;
      const exportNow = Math.max(0, -measure(site, t).boundary_kw);
      // A second round only when the first sent commands and export is still over the limit
      // (a device that did not apply its command: the next device takes the rest).
      if (d.commands.length === 0 || exportNow <= Number(cfg!.export_limit_kw) + TOLERANCE_KW) break;
    }
    const after = measure(site, t).boundary_kw;
    const limit = Number(cfg!.export_limit_kw);
    const last = decisions[decisions.length - 1]!;
    const held = Math.max(0, -after) <= limit + TOLERANCE_KW;
    const action = decisions.find((d) => d.action !== 'none')?.action ?? 'none';
    const outcome = override.site ? 'skipped_override' : held ? (setpoints.length ? 'held' : 'within_limit') : 'over_limit';
    await decisionStore.insert(q, orgId, {
      decision_id,
      site_id: siteId,
      kind: 'export_limit',
      rule: RULES.export_limit,
      inputs: { rounds },
      output: { rounds: decisions },
      outcome: { trigger, boundary_before_kw: before, boundary_after_kw: after, limit_kw: limit, outcome, setpoints, reason: last.reason },
      actor,
      created_at: now,
    });
    const ev = {
      event_id,
      site_id: siteId,
      trigger,
      tick_at: tickAt,
      at: now,
      limit_kw: limit,
      boundary_before_kw: before,
      boundary_after_kw: after,
      action,
      outcome,
      commands: setpoints,
      decision_id,
    };
    await eventStore.insert(q, orgId, ev);
    // The boundary meter's reading after the iteration, stored as the organisation's telemetry
    // (capacity reads peaks from it). It comes from the synthetic device model: the record says
    // so (`simulated`, its source) and claims no device status (decision 0304).
    const meter = site.devices.find((d) => d.kind === 'meter');
    const rows: TelemetryRow[] = [];
    if (meter) {
      const [j] = deps.writer.judge(orgId, [
        {
          asset_id: meter.device_id,
          ts: isoTime(now),
          power_kw: after,
          simulated: true,
          site_ref: siteId,
          source: 'demo-device-model',
          export_limit_event: event_id,
        },
      ]);
      if (j?.ok) {
        rows.push(j.row);
        await deps.writer.writeInTx(q, orgId, now, rows);
      }
    }
    return { view: eventView(ev), rows, at: now };
  }

  /** After the iteration's transaction committed: the meter reading is counted and streamed. */
  async function committed(orgId: string, r: { rows: TelemetryRow[]; at: Date } | null) {
    if (r && r.rows.length) await deps.writer.committed(orgId, r.at, r.rows);
  }

  const eventView = (e: {
    event_id: string;
    site_id: string;
    trigger: string;
    tick_at: Date | null;
    at: Date;
    limit_kw: number;
    boundary_before_kw: number;
    boundary_after_kw: number;
    action: string;
    outcome: string;
    commands: unknown;
    decision_id: string;
  }) => ({
    event_id: e.event_id,
    site_id: e.site_id,
    trigger: e.trigger as 'schedule' | 'manual',
    at: isoTime(e.at),
    tick_at: isoTimeOrNull(e.tick_at),
    limit_kw: Number(e.limit_kw),
    boundary_before_kw: Number(e.boundary_before_kw),
    boundary_after_kw: Number(e.boundary_after_kw),
    export_before_kw: round3(Math.max(0, -Number(e.boundary_before_kw))),
    export_after_kw: round3(Math.max(0, -Number(e.boundary_after_kw))),
    action: e.action,
    outcome: e.outcome,
    commands: e.commands,
    decision_id: e.decision_id,
  });

  function configView(siteId: string, c: ConfigRow | null, demo: boolean) {
    const enabled = c?.export_limit_enabled ?? false;
    return {
      site_id: siteId,
      configured: c !== null,
      export_limitation: { enabled, limit_kw: c?.export_limit_kw ?? null, margin_kw: c ? Number(c.margin_kw) : DEFAULT_MARGIN_KW },
      settle_seconds: c?.settle_seconds ?? DEFAULT_SETTLE_SECONDS,
      connection: c?.connection ?? null,
      loop: {
        active: demo && enabled,
        every_seconds: LOOP_EVERY_MS / 1000,
        description: demo
          ? `${LOOP_DESCRIPTION} ${enabled ? 'It runs for this site.' : 'Enable export_limitation to run it for this site.'}`
          : `${LOOP_DESCRIPTION} This is a production organisation: the configuration is recorded and no loop runs.`,
      },
      updated_at: isoTimeOrNull(c?.updated_at ?? null),
      updated_by: c?.updated_by ?? null,
    };
  }

  return {
    recordDecision,
    replayers,
    writeSetpoint,
    overridesOn,
    siteKnown,
    requireSite,
    configOf: (q: Queryable, orgId: string, siteId: string) => configStore.get(q, orgId, siteId),
    modelOf: (q: Queryable, orgId: string, siteId: string) => demoStore.site(q, orgId, siteId),

    // ---- Demo model ----
    async scenario(
      ctx: RequestContext,
      siteId: string,
      body: {
        load_kw: number;
        pv_available_kw: number;
        pv_rated_kw?: number;
        battery_rated_kw?: number;
        battery_capacity_kwh?: number;
        battery_soc_pct?: number;
        ev_rated_kw?: number;
      },
    ) {
      const now = clock.now().getTime();
      return db.tx(async (q) => {
        let site = await demoStore.site(q, ctx.orgId, siteId, { forUpdate: true });
        if (!site && !new RegExp(ASSET_ID_PATTERN).test(`${siteId}.battery`)) {
          throw controlErrors.field(
            ['path', 'site_id'],
            'A demo site id must also make device ids: letters, digits and . _ : @ + - only, at most 119 characters',
            siteId,
          );
        }
        if (!site) {
          // Registered assets of the site lend their ids to the model's devices (decision 0180).
          const assets = await registry.assets(q, ctx.orgId, { siteId });
          const taken = new Set(
            await demoStore.deviceTaken(
              q,
              ctx.orgId,
              assets.map((a) => a.asset_id),
            ),
          );
          const pick = (classes: string[], kind: DeviceKind) =>
            assets.find((a) => a.asset_class && classes.includes(a.asset_class) && !taken.has(a.asset_id))?.asset_id ?? `${siteId}.${kind}`;
          const dev = (kind: DeviceKind, device_id: string, rated_kw: number, extra: Partial<DeviceState> = {}): DeviceState => ({
            device_id,
            kind,
            behaviour: 'normal',
            rated_kw,
            capacity_kwh: null,
            soc_pct: null,
            setpoint_kw: null,
            pending_kw: null,
            pending_at: null,
            ...extra,
          });
          const ids = [
            `${siteId}.load`,
            pick(['inverter'], 'pv'),
            pick(['battery'], 'battery'),
            pick(['charger'], 'ev'),
            pick(['site_meter', 'smart_meter'], 'meter'),
          ];
          const clash = await demoStore.deviceTaken(q, ctx.orgId, ids);
          if (clash.length) throw controlErrors.field(['path', 'site_id'], `Device ids already modelled at another site: ${clash.join(', ')}`, siteId);
          site = {
            load_kw: body.load_kw,
            pv_available_kw: body.pv_available_kw,
            stepped_at: now,
            devices: [
              dev('load', ids[0]!, Math.max(body.load_kw, 1)),
              dev('pv', ids[1]!, body.pv_rated_kw ?? 6),
              dev('battery', ids[2]!, body.battery_rated_kw ?? 5, {
                capacity_kwh: body.battery_capacity_kwh ?? 13.5,
                soc_pct: body.battery_soc_pct ?? 50,
                setpoint_kw: 0,
              }),
              dev('ev', ids[3]!, body.ev_rated_kw ?? 7.4, { setpoint_kw: 0 }),
              dev('meter', ids[4]!, 0),
            ],
          };
          await demoStore.create(q, ctx.orgId, siteId, site, clock.now());
        } else {
          site = step(site, now);
          site = {
            ...site,
            load_kw: body.load_kw,
            pv_available_kw: body.pv_available_kw,
            devices: site.devices.map((d) => {
              if (d.kind === 'pv' && body.pv_rated_kw !== undefined) return { ...d, rated_kw: body.pv_rated_kw };
              if (d.kind === 'battery')
                return {
                  ...d,
                  rated_kw: body.battery_rated_kw ?? d.rated_kw,
                  capacity_kwh: body.battery_capacity_kwh ?? d.capacity_kwh,
                  soc_pct: body.battery_soc_pct ?? d.soc_pct,
                };
              if (d.kind === 'ev' && body.ev_rated_kw !== undefined) return { ...d, rated_kw: body.ev_rated_kw };
              if (d.kind === 'load') return { ...d, rated_kw: Math.max(d.rated_kw, body.load_kw) };
              return d;
            }),
          };
          await demoStore.save(q, ctx.orgId, siteId, site);
        }
        return this.balanceOf(q, ctx.orgId, siteId, site);
      });
    },

    async balanceOf(q: Queryable, orgId: string, siteId: string, known?: SiteState) {
      const site = known ?? (await demoStore.site(q, orgId, siteId));
      if (!site) throw controlErrors.noModel();
      const t = clock.now().getTime();
      const stepped = step(site, t);
      const cfg = await configStore.get(q, orgId, siteId);
      return {
        site_id: siteId,
        at: isoTime(t),
        ...siteView(stepped, t),
        scenario: { load_kw: stepped.load_kw, pv_available_kw: stepped.pv_available_kw },
        export_limit_kw: cfg?.export_limit_kw ?? null,
      };
    },

    async balance(ctx: RequestContext, siteId: string) {
      return this.balanceOf(db, ctx.orgId, siteId);
    },

    async behaviour(ctx: RequestContext, deviceId: string, behaviour: Behaviour) {
      return db.tx(async (q) => {
        const siteId = await demoStore.deviceSite(q, ctx.orgId, deviceId);
        if (siteId === null) throw controlErrors.deviceNotFound();
        const t = clock.now().getTime();
        const site = await lockedModel(q, ctx.orgId, siteId, t);
        const next = { ...site, devices: site.devices.map((d) => (d.device_id === deviceId ? { ...d, behaviour } : d)) };
        await demoStore.save(q, ctx.orgId, siteId, next);
        const view = siteView(next, t).devices.find((d) => d.device_id === deviceId)!;
        return { site_id: siteId, ...view };
      });
    },

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
      const pos = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
      const rows = await setpointStore.page(db, ctx.orgId, {
        siteId: query.site_id,
        deviceId: query.device_id,
        verdict: query.verdict,
        limit,
        before: pos ? { t: pos.t, id: String(pos.id) } : undefined,
      });
      const page = toPage(rows, limit, (r) => ({ t: r.pos, id: r.setpoint_id }), cursors, binding);
      return { setpoints: page.items.map((r) => setpointView(r)), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    // ---- Sites and configuration ----
    async sites(ctx: RequestContext) {
      const now = clock.now();
      const demo = await isDemo(ctx.orgId);
      const [models, configs, active, lastSp, lastEv] = await Promise.all([
        demoStore.siteIds(db, ctx.orgId),
        configStore.list(db, ctx.orgId),
        overrideStore.active(db, ctx.orgId, now),
        setpointStore.lastBySite(db, ctx.orgId),
        eventStore.lastBySite(db, ctx.orgId),
      ]);
      const byCfg = new Map(configs.map((c) => [c.site_id, c]));
      const ids = [...new Set([...models, ...byCfg.keys()])].sort();
      return {
        demo_realm: demo,
        sites: ids.map((id) => {
          const c = byCfg.get(id) ?? null;
          const ev = lastEv.get(id);
          return {
            site_id: id,
            device_model: models.includes(id),
            export_limitation: {
              enabled: c?.export_limit_enabled ?? false,
              limit_kw: c?.export_limit_kw ?? null,
              loop_active: demo && (c?.export_limit_enabled ?? false),
            },
            connection: c?.connection ?? null,
            active_overrides: active.filter((o) => o.site_id === id).length,
            last_setpoint_at: isoTimeOrNull(lastSp.get(id) ?? null),
            last_export_event: ev ? { at: isoTime(ev.at), outcome: ev.outcome } : null,
          };
        }),
      };
    },

    async config(ctx: RequestContext, siteId: string) {
      await requireSite(db, ctx.orgId, siteId);
      return configView(siteId, await configStore.get(db, ctx.orgId, siteId), await isDemo(ctx.orgId));
    },

    async putConfig(
      ctx: RequestContext,
      siteId: string,
      body: {
        export_limitation?: { enabled: boolean; limit_kw?: number | null; margin_kw?: number };
        settle_seconds?: number;
        connection?: ConnectionIn | null;
      },
    ) {
      const demo = await isDemo(ctx.orgId);
      return db.tx(async (q) => {
        await requireSite(q, ctx.orgId, siteId);
        const cur = await configStore.get(q, ctx.orgId, siteId);
        const el = body.export_limitation;
        const connection = body.connection === undefined ? (cur?.connection ?? null) : body.connection;
        const limit = el ? (el.limit_kw ?? null) : (cur?.export_limit_kw ?? null);
        const enabled = el ? el.enabled : (cur?.export_limit_enabled ?? false);
        if (enabled && limit === null) throw controlErrors.field(['body', 'export_limitation', 'limit_kw'], 'Required when export limitation is enabled', null);
        if (limit !== null && connection && limit > connection.export_limit_kw) {
          throw controlErrors.field(
            ['body', 'export_limitation', 'limit_kw'],
            `Above the connection agreement's export limit of ${connection.export_limit_kw} kW`,
            limit,
          );
        }
        if (connection && connection.category === 'G98' && connection.phases !== 1 && connection.phases !== 3)
          throw controlErrors.field(['body', 'connection', 'phases'], 'Must be 1 or 3', connection.phases);
        const row: ConfigRow = {
          site_id: siteId,
          demo,
          export_limit_enabled: enabled,
          export_limit_kw: limit,
          margin_kw: el?.margin_kw ?? (cur ? Number(cur.margin_kw) : DEFAULT_MARGIN_KW),
          settle_seconds: body.settle_seconds ?? cur?.settle_seconds ?? DEFAULT_SETTLE_SECONDS,
          connection: connection
            ? {
                import_limit_kw: connection.import_limit_kw,
                export_limit_kw: connection.export_limit_kw,
                category: connection.category,
                phases: connection.phases ?? 1,
                reference: connection.reference ?? null,
              }
            : null,
          updated_at: clock.now(),
          updated_by: actorId(ctx),
        };
        await configStore.put(q, ctx.orgId, row);
        return configView(siteId, row, demo);
      });
    },

    // ---- Export limitation ----
    async run(ctx: RequestContext, siteId: string) {
      const r = (await db.tx((q) => iterate(q, ctx.orgId, siteId, 'manual', actorId(ctx))))!;
      await committed(ctx.orgId, r);
      return r.view;
    },

    /** The 30 s tick: every demo-realm site with limitation on, each once per tick across instances. */
    async tick(): Promise<{ ran: number }> {
      const sites = await configStore.loopSites(deps.work);
      let ran = 0;
      // One site's failure does not stop the others: each site is its own unit, retried with
      // backoff, then quarantined (decision 0285).
      await deps.units.each(
        LOOP_KIND,
        sites,
        (s) => ({ orgId: s.org_id, key: s.site_id }),
        async (s) => {
          if (!(await isDemo(s.org_id))) return;
          const r = await deps.work.tx((q) => iterate(q, s.org_id, s.site_id, 'schedule', null));
          await committed(s.org_id, r);
          if (r) ran++;
        },
      );
      return { ran };
    },

    /** Retention: idle scheduled iterations older than `days` go, with their decisions. */
    async purgeIdleTicks(days: number): Promise<number> {
      return eventStore.purgeIdleTicks(deps.work, new Date(clock.now().getTime() - days * 86_400_000));
    },

    async events(ctx: RequestContext, siteId: string, query: { limit?: number; cursor?: string }) {
      await requireSite(db, ctx.orgId, siteId);
      const limit = query.limit ?? 50;
      const binding = { op: 'listExportLimitEvents', orgId: ctx.orgId, filters: { site_id: siteId } };
      const pos = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
      const rows = await eventStore.page(db, ctx.orgId, siteId, { limit, before: pos ? { t: pos.t, id: String(pos.id) } : undefined });
      const page = toPage(rows, limit, (r) => ({ t: r.pos, id: r.event_id }), cursors, binding);
      return {
        site_id: siteId,
        loop: { every_seconds: LOOP_EVERY_MS / 1000, description: LOOP_DESCRIPTION },
        events: page.items.map(eventView),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    // ---- Overrides ----
    async overrides(ctx: RequestContext, query: { site_id?: string; status?: 'active' | 'revoked' | 'expired'; limit?: number; cursor?: string }) {
      const now = clock.now();
      const limit = query.limit ?? 50;
      const binding = { op: 'listOverrides', orgId: ctx.orgId, filters: { s: query.site_id ?? null, st: query.status ?? null } };
      const pos = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
      const rows = await overrideStore.page(db, ctx.orgId, now, {
        siteId: query.site_id,
        status: query.status,
        limit,
        before: pos ? { t: pos.t, id: String(pos.id) } : undefined,
      });
      const page = toPage(rows, limit, (r) => ({ t: r.pos, id: r.override_id }), cursors, binding);
      return { overrides: page.items.map((o) => overrideView(o, now)), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async createOverride(ctx: RequestContext, body: { site_id: string; device_id?: string | null; reason: string; authority: string; expires_at: string }) {
      const now = clock.now();
      const expires = new Date(body.expires_at);
      if (!(expires.getTime() > now.getTime())) throw controlErrors.field(['body', 'expires_at'], 'Must be in the future', body.expires_at);
      if (expires.getTime() - now.getTime() > 7 * 86_400_000) throw controlErrors.field(['body', 'expires_at'], 'At most 7 days ahead', body.expires_at);
      return db.tx(async (q) => {
        await requireSite(q, ctx.orgId, body.site_id);
        if (body.device_id) {
          const site = await demoStore.deviceSite(q, ctx.orgId, body.device_id);
          const assets = site === null ? await registry.assets(q, ctx.orgId, { siteId: body.site_id }) : [];
          if (site !== body.site_id && !assets.some((a) => a.asset_id === body.device_id))
            throw controlErrors.field(['body', 'device_id'], `Not a device of site '${body.site_id}'`, body.device_id);
        }
        const row: OverrideRow = {
          override_id: randomUUID(),
          site_id: body.site_id,
          device_id: body.device_id ?? null,
          reason: body.reason,
          authority: body.authority,
          starts_at: now,
          expires_at: expires,
          created_by: actorId(ctx),
          created_at: now,
          revoked_at: null,
          revoked_by: null,
          revoke_reason: null,
        };
        await overrideStore.insert(q, ctx.orgId, row);
        return overrideView(row, now);
      });
    },

    async revokeOverride(ctx: RequestContext, id: string, reason: string) {
      const now = clock.now();
      return db.tx(async (q) => {
        const o = await overrideStore.get(q, ctx.orgId, id, { forUpdate: true });
        if (!o) throw controlErrors.overrideNotFound();
        const status = overrideView(o, now).status;
        if (status !== 'active') throw controlErrors.overrideNotActive(status);
        await overrideStore.revoke(q, ctx.orgId, id, actorId(ctx), reason, now);
        return overrideView((await overrideStore.get(q, ctx.orgId, id))!, now);
      });
    },

    // ---- Decision log ----
    async decisions(ctx: RequestContext, query: { site_id?: string; kind?: string; limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listDecisions', orgId: ctx.orgId, filters: { s: query.site_id ?? null, k: query.kind ?? null } };
      const pos = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
      const rows = await decisionStore.page(db, ctx.orgId, {
        siteId: query.site_id,
        kind: query.kind,
        limit,
        before: pos ? { t: pos.t, id: String(pos.id) } : undefined,
      });
      const page = toPage(rows, limit, (r) => ({ t: r.pos, id: r.decision_id }), cursors, binding);
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

export type Control = ReturnType<typeof createControl>;
