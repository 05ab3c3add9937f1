// Grid connection: guardrails from the site's connection agreement (stored in its control
// configuration), evaluation of a plan or setpoint against them (logged as a decision), reading
// limits from an agreement's stated fields, the confirm preview (never saved, as the spec says), and
// capacity with headroom by UK half hour from measured peaks (decisions 0183, 0185).
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { FIRST_SERVICE_DATE, isServiceDate, LAST_SERVICE_DATE, slotsInDay, ukClock, ukMidnight, SLOT_MS } from '../../kit/uk-time.ts';
import type { RegistrySites } from '../registry/index.ts';
import type { TelemetryReads } from '../telemetry/index.ts';
import { controlErrors } from './errors.ts';
import { CONTROLLABLE, evaluateGuardrails, guardrailsOf, measure, round3, step, type Category, type Connection } from './model.ts';
import { actorId, RULES, type DecisionLogService } from './decisions.ts';
import type { DemoModel } from './demo-model.ts';
import type { Sites } from './sites.ts';

export const CAPACITY_WINDOW_DAYS = 28;
export const CAPACITY_METHOD =
  `Measured: the site's boundary meters (registered site or smart meters, and the demo model's meter) from stored telemetry over the last ${CAPACITY_WINDOW_DAYS} days; ` +
  "each half hour's mean power, summed over meters; the peak import for each wall-clock half hour of the UK day is the highest of those; headroom = the agreement's import limit - that peak.";
export const PLAN_METHOD =
  'Calculated: for each settlement period of the UK date (46 or 50 on clock-change days) the measured peak of its wall-clock half hour plus the added load, against the import limit.';

const hhmm = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
const slotOf = (t: number) => Math.floor(ukClock(t).minute / 30) * 30;
const toMinute = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

// ---- Reading an agreement -------------------------------------------------------------------------

const NUMBER_UNIT = /(-?\d+(?:[.,]\d+)?)\s*(mva|mw|kva|kw|w|a)?\b/i;

function readPower(value: string | number, pf: number, phases: number | null): { kw: number; note: string | null } | null {
  if (typeof value === 'number') return { kw: value, note: 'A bare number is read as kW.' };
  const m = NUMBER_UNIT.exec(value);
  if (!m) return null;
  const x = Number(m[1]!.replace(',', '.'));
  const unit = (m[2] ?? 'kw').toLowerCase();
  switch (unit) {
    case 'kw':
      return { kw: x, note: m[2] ? null : 'No unit: read as kW.' };
    case 'mw':
      return { kw: x * 1000, note: 'MW converted to kW.' };
    case 'w':
      return { kw: x / 1000, note: 'W converted to kW.' };
    case 'kva':
      return { kw: round3(x * pf), note: `kVA converted to kW at power factor ${pf}.` };
    case 'mva':
      return { kw: round3(x * 1000 * pf), note: `MVA converted to kW at power factor ${pf}.` };
    case 'a': {
      const p = phases ?? 1;
      return { kw: round3((x * 230 * p) / 1000), note: `Amperes per phase converted to kW at 230 V on ${p} phase${p === 3 ? 's' : ''}.` };
    }
  }
  return null;
}

export function readAgreement(fields: Record<string, string | number>) {
  const entries = Object.entries(fields);
  const find = (re: RegExp) => entries.find(([k]) => re.test(k.toLowerCase()));
  const extracted: { member: string; field: string; value: string; note: string | null }[] = [];
  const used = new Set<string>();
  const take = (member: string, e: [string, string | number] | undefined, note: string | null = null) => {
    if (!e) return;
    used.add(e[0]);
    extracted.push({ member, field: e[0], value: String(e[1]), note });
  };

  const pfField = find(/power factor|^pf$/);
  const pf = pfField && Number.isFinite(Number(pfField[1])) && Number(pfField[1]) > 0 && Number(pfField[1]) <= 1 ? Number(pfField[1]) : 1;
  take('power_factor', pfField);

  const phaseField = find(/phase/);
  let phases: 1 | 3 | null = null;
  if (phaseField) {
    const v = String(phaseField[1]).toLowerCase();
    phases = /3|three|poly/.test(v) ? 3 : /1|single|one/.test(v) ? 1 : null;
    if (phases) take('phases', phaseField);
  }

  let category: Category | null = null;
  const catField = find(/g98|g99|engineering recommendation|connection type|category|standard/) ?? entries.find(([, v]) => /\bG9[89]\b/i.test(String(v)));
  if (catField) {
    const v = `${catField[0]} ${catField[1]}`.toUpperCase();
    category = v.includes('G99') ? 'G99' : v.includes('G98') ? 'G98' : null;
    if (category) take('category', catField);
  }

  const power = (member: string, re: RegExp) => {
    const e = find(re);
    if (!e) return null;
    const r = readPower(e[1], pf, phases);
    if (!r) return null;
    take(member, e, r.note);
    return r.kw;
  };
  const import_limit_kw = power('import_limit_kw', /maximum import|\bmic\b|import capacity|import limit|agreed supply capacity|\basc\b/);
  const export_limit_kw = power('export_limit_kw', /maximum export|\bmec\b|export capacity|export limit/);
  const refField = find(/reference|agreement (no|number|id)|offer (no|number|ref)/);
  take('reference', refField);

  const missing = [
    ...(import_limit_kw === null ? ['import_limit_kw'] : []),
    ...(export_limit_kw === null ? ['export_limit_kw'] : []),
    ...(category === null ? ['category'] : []),
  ];
  return {
    import_limit_kw,
    export_limit_kw,
    category,
    phases,
    power_factor: pf,
    reference: refField ? String(refField[1]) : null,
    complete: missing.length === 0,
    missing,
    extracted,
    unread: entries.map(([k]) => k).filter((k) => !used.has(k)),
    method:
      'Fields are matched by name (maximum import/export capacity, MIC/MEC, agreed supply capacity, connection type or category, phases, power factor, reference); ' +
      'values with units kW, kVA and MVA (at the stated power factor, else 1), MW, W or amperes per phase (230 V). Nothing is stored.',
  };
}

export function createGrid(deps: {
  db: Db;
  clock: Clock;
  sites: Sites;
  demoModel: DemoModel;
  decisions: DecisionLogService;
  registry: RegistrySites;
  telemetry: TelemetryReads;
}) {
  const { db, clock, sites, demoModel, decisions, registry, telemetry } = deps;

  async function connectionOf(orgId: string, siteId: string): Promise<Connection | null> {
    return (await sites.configOf(db, orgId, siteId))?.connection ?? null;
  }

  /** Measured peak import per wall-clock half hour over the window. */
  async function profile(orgId: string, siteId: string) {
    const now = clock.now().getTime();
    const assets = await registry.assets(db, orgId, { siteId });
    const meters = new Set(assets.filter((a) => a.asset_class === 'site_meter' || a.asset_class === 'smart_meter').map((a) => a.asset_id));
    const model = await demoModel.modelOf(db, orgId, siteId);
    const modelMeter = model?.devices.find((d) => d.kind === 'meter');
    if (modelMeter) meters.add(modelMeter.device_id);
    const from = now - CAPACITY_WINDOW_DAYS * 86_400_000;
    // Readings at the present instant count (the window ends after now).
    const rows = await telemetry.halfHourly(db, orgId, [...meters].sort(), new Date(from), new Date(now + 1));
    const bySlotStart = new Map<number, number>();
    for (const r of rows)
      if (r.mean_power_kw !== null) bySlotStart.set(Date.parse(r.slot), (bySlotStart.get(Date.parse(r.slot)) ?? 0) + Number(r.mean_power_kw));
    const peaks = new Map<number, { kw: number; at: number; n: number }>();
    for (const [start, kw] of bySlotStart) {
      const slot = slotOf(start);
      const cur = peaks.get(slot);
      if (!cur || kw > cur.kw) peaks.set(slot, { kw, at: start, n: (cur?.n ?? 0) + 1 });
      else cur.n++;
    }
    return { meters: [...meters].sort(), from, to: now, peaks };
  }

  return {
    async guardrails(ctx: RequestContext, siteId: string) {
      await sites.requireSite(db, ctx.orgId, siteId);
      const c = await connectionOf(ctx.orgId, siteId);
      return {
        site_id: siteId,
        configured: c !== null,
        connection: c,
        guardrails: c ? guardrailsOf(c) : [],
        source: c
          ? "The connection agreement in the site's control configuration (PUT .../control/sites/{site_id}/config, member connection)."
          : 'No connection agreement recorded for this site.',
      };
    },

    async evaluate(
      ctx: RequestContext,
      siteId: string,
      body: {
        intervals?: { start?: string; label?: string; boundary_kw: number; generation_kw?: number | null }[];
        setpoint?: { device_id: string; value_kw: number };
      },
    ) {
      if ((body.intervals === undefined) === (body.setpoint === undefined))
        throw controlErrors.field(['body'], 'Send exactly one of intervals or setpoint', null);
      await sites.requireSite(db, ctx.orgId, siteId);
      const c = await connectionOf(ctx.orgId, siteId);
      if (!c) throw controlErrors.noAgreement();
      let intervals: { label: string; boundary_kw: number; generation_kw: number | null }[];
      let subject: 'plan' | 'setpoint';
      if (body.setpoint) {
        subject = 'setpoint';
        const sp = body.setpoint;
        const model = await demoModel.modelOf(db, ctx.orgId, siteId);
        if (!model)
          throw controlErrors.field(['body', 'setpoint'], "A setpoint is evaluated on the site's device model (demo realm); send intervals instead", sp);
        const t = clock.now().getTime();
        const site = step(model, t);
        const d = site.devices.find((x) => x.device_id === sp.device_id);
        if (!d || !CONTROLLABLE.includes(d.kind))
          throw controlErrors.field(['body', 'setpoint', 'device_id'], "Not a controllable device of this site's model", sp.device_id);
        const projected = measure({ ...site, devices: site.devices.map((x) => (x === d ? { ...x, pending_kw: sp.value_kw, pending_at: t } : x)) }, t);
        const pv = projected.devices.find((x) => x.kind === 'pv');
        intervals = [
          {
            label: `setpoint ${sp.device_id} = ${sp.value_kw} kW (projected at ${isoTime(t)})`,
            boundary_kw: projected.boundary_kw,
            generation_kw: pv ? round3(-pv.power_kw) : null,
          },
        ];
      } else {
        subject = 'plan';
        intervals = body.intervals!.map((iv, i) => ({
          label: iv.label ?? iv.start ?? `interval ${i}`,
          boundary_kw: iv.boundary_kw,
          generation_kw: iv.generation_kw ?? null,
        }));
      }
      const inputs = { guardrails: guardrailsOf(c), intervals };
      const result = evaluateGuardrails(inputs);
      const decision_id = await db.tx((q) =>
        decisions.recordDecision(q, ctx.orgId, {
          site_id: siteId,
          kind: 'guardrail',
          rule: RULES.guardrail,
          inputs,
          output: result,
          outcome: { subject, allowed: result.allowed, violations: result.violations.length },
          actor: actorId(ctx),
        }),
      );
      return {
        site_id: siteId,
        decision_id,
        subject,
        allowed: result.allowed,
        checked: intervals.length,
        violations: result.violations,
        guardrails: inputs.guardrails,
      };
    },

    read: (body: { fields: Record<string, string | number> }) => readAgreement(body.fields),

    async confirm(
      ctx: RequestContext,
      body: { site_id: string; import_limit_kw: number; export_limit_kw: number; category: Category; phases?: 1 | 3; reference?: string | null },
    ) {
      await sites.requireSite(db, ctx.orgId, body.site_id);
      const current = await connectionOf(ctx.orgId, body.site_id);
      const would: Connection = {
        import_limit_kw: body.import_limit_kw,
        export_limit_kw: body.export_limit_kw,
        category: body.category,
        phases: body.phases ?? 1,
        reference: body.reference ?? null,
      };
      const changes = (Object.keys(would) as (keyof Connection)[])
        .filter((k) => (current?.[k] ?? null) !== would[k])
        .map((k) => ({ member: k, current: current?.[k] ?? null, proposed: would[k] }));
      const warnings: string[] = [];
      const g98 = round3(3.68 * would.phases);
      if (would.category === 'G98' && would.export_limit_kw > g98)
        warnings.push(
          `G98 allows at most ${g98} kW of generation on ${would.phases} phase(s); the export limit ${would.export_limit_kw} kW exceeds it (a G99 agreement is needed).`,
        );
      const cfg = await sites.configOf(db, ctx.orgId, body.site_id);
      if (cfg?.export_limit_kw != null && cfg.export_limit_kw > would.export_limit_kw)
        warnings.push(`The site's export limitation limit ${cfg.export_limit_kw} kW is above this agreement's export limit; lower it before storing.`);
      return {
        site_id: body.site_id,
        stored: false as const,
        would_store: would,
        current,
        changes,
        guardrails: guardrailsOf(would),
        warnings,
        note: 'Not saved. To store it, PUT /api/hardware/ems/control/sites/{site_id}/config with this object as `connection`.',
      };
    },

    async capacity(ctx: RequestContext, siteId: string) {
      await sites.requireSite(db, ctx.orgId, siteId);
      const c = await connectionOf(ctx.orgId, siteId);
      const p = await profile(ctx.orgId, siteId);
      const limit = c?.import_limit_kw ?? null;
      let peak: { kw: number; at: number } | null = null;
      for (const v of p.peaks.values()) if (!peak || v.kw > peak.kw) peak = v;
      return {
        site_id: siteId,
        import_limit_kw: limit,
        window: { from: isoTime(p.from), to: isoTime(p.to), days: CAPACITY_WINDOW_DAYS },
        meters: p.meters,
        peak_import_kw: peak ? round3(peak.kw) : null,
        peak_at: peak ? isoTime(peak.at) : null,
        headroom_kw: peak && limit !== null ? round3(limit - peak.kw) : null,
        half_hours: Array.from({ length: 48 }, (_, i) => {
          const v = p.peaks.get(i * 30);
          return {
            slot: hhmm(i * 30),
            peak_kw: v ? round3(v.kw) : null,
            headroom_kw: v && limit !== null ? round3(limit - v.kw) : null,
            half_hours_measured: v?.n ?? 0,
          };
        }),
        method: CAPACITY_METHOD,
      };
    },

    async plan(ctx: RequestContext, siteId: string, body: { date: string; added_kw: number; from?: string; to?: string }) {
      if (!isServiceDate(body.date))
        throw controlErrors.field(['body', 'date'], `Input should be a calendar date from ${FIRST_SERVICE_DATE} to ${LAST_SERVICE_DATE}`, body.date);
      await sites.requireSite(db, ctx.orgId, siteId);
      const c = await connectionOf(ctx.orgId, siteId);
      if (!c) throw controlErrors.noAgreement();
      const p = await profile(ctx.orgId, siteId);
      const from = body.from === undefined ? 0 : toMinute(body.from);
      const to = body.to === undefined ? 24 * 60 : toMinute(body.to);
      const inWindow = (m: number) => (from <= to ? m >= from && m < to : m >= from || m < to);
      const start = ukMidnight(body.date);
      const half_hours = Array.from({ length: slotsInDay(body.date) }, (_, i) => {
        const t = start + i * SLOT_MS;
        const slot = slotOf(t);
        const peak = p.peaks.get(slot)?.kw ?? null;
        const added = inWindow(slot) ? body.added_kw : 0;
        const after = peak === null ? null : round3(peak + added);
        return {
          period: i + 1,
          start: isoTime(t),
          slot: hhmm(slot),
          peak_kw: peak === null ? null : round3(peak),
          added_kw: added,
          planned_peak_kw: after,
          headroom_kw: after === null ? null : round3(c.import_limit_kw - after),
          fits: after === null ? null : after <= c.import_limit_kw,
        };
      });
      const short = half_hours.filter((h) => h.fits === false);
      return {
        site_id: siteId,
        date: body.date,
        periods: half_hours.length,
        import_limit_kw: c.import_limit_kw,
        added_kw: body.added_kw,
        window: { from: hhmm(from % 1440), to: body.to ?? '24:00' },
        fits: short.length === 0 && half_hours.some((h) => h.fits !== null) ? true : short.length ? false : null,
        shortfall_periods: short.length,
        first_shortfall: short[0]?.start ?? null,
        unmeasured_periods: half_hours.filter((h) => h.fits === null).length,
        half_hours,
        method: PLAN_METHOD,
      };
    },
  };
}

export type Grid = ReturnType<typeof createGrid>;
