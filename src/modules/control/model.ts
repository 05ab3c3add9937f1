// The pure rules of control: the synthetic device model's physics, the verified write's verdict,
// the export limitation decision and the grid guardrail evaluation. No store, no clock: every
// function decides from its arguments only, so the decision log can replay a recorded decision on
// its recorded inputs with today's code (decision 0184).
//
// Signs follow the telemetry record (concepts.md): positive = import or charge, negative = export,
// generation or discharge. Boundary = load + battery + EV + PV (PV is negative), i.e.
// load + battery charge + EV - PV output - battery discharge.

export const DEVICE_KINDS = ['load', 'pv', 'battery', 'ev', 'meter'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];
export const CONTROLLABLE: readonly DeviceKind[] = ['pv', 'battery', 'ev'];
export const BEHAVIOURS = ['normal', 'ignores', 'unreachable', 'rejects', 'slow'] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];
export const VERDICTS = ['verified', 'readback_mismatch', 'unconfirmed', 'rejected'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The export limitation loop runs this often on the job queue (a unit per site), under this schedule kind. */
export const LOOP_EVERY_MS = 30_000;
export const LOOP_KIND = 'control.export-limit';
export const DEADBAND_KW = 0.3;
/** A site's configuration until it saves its own: the read-back wait and the margin under the export limit. */
export const DEFAULT_SETTLE_SECONDS = 5;
export const DEFAULT_MARGIN_KW = 0.2;
export const LOOP_DESCRIPTION =
  "Export limitation runs every 30 seconds on the service's job queue for demo-realm sites only. It is cloud hosted, not type tested and not G100 certified: " +
  'it is not a substitute for a certified on-site export limitation scheme.';

/** A `slow` device applies an accepted command this long after it (a `normal` one at once). */
export const SLOW_APPLY_SECONDS = 60;
/** Read-back agrees with what the command calls for within this many kW. */
export const TOLERANCE_KW = 0.05;
/** The loop does not ask a battery at or above this state of charge to charge more. */
export const BATTERY_FULL_PCT = 95;

export interface DeviceState {
  device_id: string;
  kind: DeviceKind;
  behaviour: Behaviour;
  rated_kw: number;
  capacity_kwh: number | null;
  soc_pct: number | null;
  /** The applied command: PV active power limit (kW output), battery power, EV charge power. */
  setpoint_kw: number | null;
  /** An accepted command not applied yet, and when it applies. */
  pending_kw: number | null;
  pending_at: number | null;
}

export interface SiteState {
  load_kw: number;
  pv_available_kw: number;
  /** When the battery's state of charge was last integrated. */
  stepped_at: number;
  devices: DeviceState[];
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** The command in force on a device at instant t. */
export function appliedAt(d: DeviceState, t: number): number | null {
  if (d.pending_kw !== null && d.pending_at !== null && t >= d.pending_at) return d.pending_kw;
  return d.setpoint_kw;
}

/** Each device's measured power at instant t (the battery's state of charge as last stepped). */
export function devicePower(site: SiteState, d: DeviceState, t: number): number {
  const cmd = appliedAt(d, t);
  switch (d.kind) {
    case 'load':
      return site.load_kw;
    case 'pv':
      return -Math.min(site.pv_available_kw, d.rated_kw, cmd ?? d.rated_kw);
    case 'battery': {
      const p = clamp(cmd ?? 0, -d.rated_kw, d.rated_kw);
      if (p > 0 && (d.soc_pct ?? 0) >= 100) return 0;
      if (p < 0 && (d.soc_pct ?? 0) <= 0) return 0;
      return p;
    }
    case 'ev':
      return clamp(cmd ?? 0, 0, d.rated_kw);
    case 'meter':
      return 0;
  }
}

export interface Measured {
  boundary_kw: number;
  devices: { device_id: string; kind: DeviceKind; power_kw: number }[];
}

/** The site measured at instant t: every device's power and the boundary meter (their sum). */
export function measure(site: SiteState, t: number): Measured {
  const devices = site.devices.map((d) => ({ device_id: d.device_id, kind: d.kind, power_kw: round3(devicePower(site, d, t)) }));
  const boundary = devices.filter((d) => d.kind !== 'meter').reduce((s, d) => s + d.power_kw, 0);
  return { boundary_kw: round3(boundary), devices: devices.map((d) => (d.kind === 'meter' ? { ...d, power_kw: round3(boundary) } : d)) };
}

/**
 * Moves the model to instant `to`: the battery's state of charge integrates its power over the
 * time since the last step (split where a pending command applies), and applied commands become
 * the device's setpoint. Returns a new state.
 */
export function step(site: SiteState, to: number): SiteState {
  if (to <= site.stepped_at) return site;
  const devices = site.devices.map((d) => {
    let soc = d.soc_pct;
    if (d.kind === 'battery' && d.capacity_kwh && soc !== null) {
      const cuts = [site.stepped_at, ...(d.pending_at !== null && d.pending_at > site.stepped_at && d.pending_at < to ? [d.pending_at] : []), to];
      for (let i = 0; i + 1 < cuts.length; i++) {
        const p = devicePower(site, { ...d, soc_pct: soc }, cuts[i]!);
        soc = clamp(soc + (p * ((cuts[i + 1]! - cuts[i]!) / 3_600_000) * 100) / d.capacity_kwh, 0, 100);
      }
      soc = round3(soc);
    }
    const applied = d.pending_at !== null && d.pending_at <= to;
    return {
      ...d,
      soc_pct: soc,
      setpoint_kw: applied ? d.pending_kw : d.setpoint_kw,
      pending_kw: applied ? null : d.pending_kw,
      pending_at: applied ? null : d.pending_at,
    };
  });
  return { ...site, stepped_at: to, devices };
}

// ---- The verified write's verdict ---------------------------------------------------------------

export interface VerdictInputs {
  /** What the device answered to the command. */
  response: 'accepted' | 'rejected' | 'no_answer';
  /** The device's measured power the command calls for at the read-back instant. */
  expected_kw: number | null;
  /** The device's measured power read back independently at that instant; null when unreadable. */
  readback_kw: number | null;
  tolerance_kw: number;
}

export function verdictOf(i: VerdictInputs): { verdict: Verdict; reason: string } {
  if (i.response === 'no_answer') return { verdict: 'unconfirmed', reason: 'The device did not answer the command; its state cannot be read.' };
  if (i.response === 'rejected') return { verdict: 'rejected', reason: 'The device refused the command.' };
  if (i.readback_kw === null || i.expected_kw === null)
    return { verdict: 'unconfirmed', reason: 'The device accepted the command but its state could not be read back.' };
  const diff = Math.abs(i.readback_kw - i.expected_kw);
  if (diff <= i.tolerance_kw) return { verdict: 'verified', reason: `Read back ${i.readback_kw} kW, as the command calls for (within ${i.tolerance_kw} kW).` };
  return { verdict: 'readback_mismatch', reason: `Accepted, not applied: read back ${i.readback_kw} kW where the command calls for ${i.expected_kw} kW.` };
}

// ---- Export limitation ----------------------------------------------------------------------------

export interface ExportInputs {
  boundary_kw: number;
  limit_kw: number;
  margin_kw: number;
  /** Held below the target by more than this before anything is released. */
  deadband_kw: number;
  /** Active overrides: the whole site, or these devices. */
  override: { site: boolean; devices: string[] };
  /** Devices that did not verify a command earlier in this iteration: the next round leaves them out. */
  failed: string[];
  battery: { device_id: string; power_kw: number; setpoint_kw: number | null; rated_kw: number; soc_pct: number | null } | null;
  pv: { device_id: string; power_kw: number; limit_kw: number | null; rated_kw: number } | null;
}

export interface ExportCommand {
  device_id: string;
  value_kw: number;
  why: string;
}

export interface ExportDecision {
  export_kw: number;
  target_kw: number;
  action: 'none' | 'reduce_export' | 'release' | 'skipped_override';
  commands: ExportCommand[];
  reason: string;
}

/**
 * One iteration of export limitation: with export above `limit - margin`, charge the battery
 * harder first (the energy is kept), then curtail PV by what remains; with export below the target
 * by more than the deadband, give back PV curtailment first, then the battery's charge.
 */
export function decideExport(i: ExportInputs): ExportDecision {
  const exportKw = round3(Math.max(0, -i.boundary_kw));
  const target = round3(Math.max(0, i.limit_kw - i.margin_kw));
  const base = { export_kw: exportKw, target_kw: target };
  if (i.override.site) return { ...base, action: 'skipped_override', commands: [], reason: 'An active override holds the site: the loop sends nothing.' };
  const usable = (id: string) => !i.override.devices.includes(id) && !i.failed.includes(id);
  const battery = i.battery && usable(i.battery.device_id) ? i.battery : null;
  const pv = i.pv && usable(i.pv.device_id) ? i.pv : null;
  const excess = round3(exportKw - target);
  if (excess > TOLERANCE_KW) {
    const commands: ExportCommand[] = [];
    let remaining = excess;
    if (battery && (battery.soc_pct ?? 100) < BATTERY_FULL_PCT) {
      const charging = Math.max(0, battery.power_kw);
      const add = Math.min(remaining, battery.rated_kw - charging);
      if (add > TOLERANCE_KW) {
        commands.push({ device_id: battery.device_id, value_kw: round3(charging + add), why: `charge ${round3(add)} kW more to absorb export` });
        remaining = round3(remaining - add);
      }
    }
    if (remaining > TOLERANCE_KW && pv) {
      const output = -pv.power_kw;
      commands.push({ device_id: pv.device_id, value_kw: round3(Math.max(0, output - remaining)), why: `curtail PV by ${remaining} kW` });
      remaining = 0;
    }
    const reason = commands.length
      ? `Export ${exportKw} kW is above the target ${target} kW (limit ${i.limit_kw} kW less margin ${i.margin_kw} kW) by ${excess} kW.`
      : `Export ${exportKw} kW is above the target ${target} kW and no device can act (overridden, failed, full or absent).`;
    return { ...base, action: 'reduce_export', commands, reason };
  }
  // How far the boundary may move towards export before reaching the target (import counts too).
  const room = round3(target + i.boundary_kw);
  if (room > i.deadband_kw) {
    const commands: ExportCommand[] = [];
    if (pv && pv.limit_kw !== null && pv.limit_kw < pv.rated_kw) {
      const output = -pv.power_kw;
      if (output < pv.limit_kw - TOLERANCE_KW) {
        // The limit does not bind (the sun offers less): lifting it changes nothing now.
        commands.push({ device_id: pv.device_id, value_kw: pv.rated_kw, why: 'lift a PV limit that no longer binds' });
      } else {
        const next = round3(Math.min(pv.rated_kw, pv.limit_kw + room));
        return {
          ...base,
          action: 'release',
          commands: [{ device_id: pv.device_id, value_kw: next, why: `release PV curtailment by ${round3(next - pv.limit_kw)} kW` }],
          reason: `Export is ${room} kW below the target: PV curtailment is given back first.`,
        };
      }
    }
    if (battery && battery.setpoint_kw !== null && battery.setpoint_kw > 0) {
      const next = round3(Math.max(0, battery.setpoint_kw - room));
      commands.push({ device_id: battery.device_id, value_kw: next, why: `reduce battery charge by ${round3(battery.setpoint_kw - next)} kW` });
    }
    if (commands.length)
      return {
        ...base,
        action: 'release',
        commands,
        reason: `Export is ${room} kW below the target: curtailment and the battery's extra charge are released.`,
      };
  }
  return { ...base, action: 'none', commands: [], reason: `Export ${exportKw} kW is within the target ${target} kW; nothing to change.` };
}

// ---- Grid guardrails -----------------------------------------------------------------------------

export const CATEGORIES = ['G98', 'G99'] as const;
export type Category = (typeof CATEGORIES)[number];
/** G98: up to 16 A per phase at 230 V. */
export const G98_KW_PER_PHASE = 3.68;

export interface Connection {
  import_limit_kw: number;
  export_limit_kw: number;
  category: Category;
  phases: 1 | 3;
  reference: string | null;
}

export interface Guardrail {
  rule: 'import_limit' | 'export_limit' | 'g98_generation';
  limit_kw: number;
  description: string;
}

export function guardrailsOf(c: Connection): Guardrail[] {
  const g: Guardrail[] = [
    {
      rule: 'import_limit',
      limit_kw: c.import_limit_kw,
      description: `Import at the boundary at most ${c.import_limit_kw} kW (the agreement's import capacity).`,
    },
    {
      rule: 'export_limit',
      limit_kw: c.export_limit_kw,
      description: `Export at the boundary at most ${c.export_limit_kw} kW (the agreement's export capacity).`,
    },
  ];
  if (c.category === 'G98') {
    const kw = round3(G98_KW_PER_PHASE * c.phases);
    g.push({
      rule: 'g98_generation',
      limit_kw: kw,
      description: `G98: generation at most 16 A per phase (${kw} kW on ${c.phases} phase${c.phases === 3 ? 's' : ''}).`,
    });
  }
  return g;
}

export interface GuardrailInputs {
  guardrails: Guardrail[];
  intervals: { label: string; boundary_kw: number; generation_kw: number | null }[];
}

export interface Violation {
  index: number;
  label: string;
  rule: Guardrail['rule'];
  limit_kw: number;
  value_kw: number;
  excess_kw: number;
}

export function evaluateGuardrails(i: GuardrailInputs): { allowed: boolean; violations: Violation[] } {
  const violations: Violation[] = [];
  i.intervals.forEach((iv, index) => {
    for (const g of i.guardrails) {
      const value = g.rule === 'import_limit' ? iv.boundary_kw : g.rule === 'export_limit' ? -iv.boundary_kw : iv.generation_kw;
      if (value === null) continue;
      if (value > g.limit_kw + 1e-9)
        violations.push({ index, label: iv.label, rule: g.rule, limit_kw: g.limit_kw, value_kw: round3(value), excess_kw: round3(value - g.limit_kw) });
    }
  });
  return { allowed: violations.length === 0, violations };
}
