// Fleet savings statements (decisions 0200-0204): a baseline per site proposed from the site's own
// energy over a reference period, agreed (frozen) or withdrawn; statements issued for a period
// against an agreed baseline, signed with the service's receipt key exactly as settlement receipts
// are (signBody / checkSigned from the settlement module, RECEIPT_KEYRING from esg), and verifiable
// by anyone from the hash or a presented copy.
import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import type { AppDeps } from '../../platform/module.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors } from '../../platform/errors.ts';
import { invalidCursor, toPage } from '../../platform/cursor.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { Keyring } from '../esg/index.ts';
import { checkSigned, isoInstant, sha256Hex, signatureMembers, signBody, type KeyLookup } from '../settlement/index.ts';
import type { EnergyFigures, FactorVersionRow, SiteDayRow } from '../energy/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { formatScaled, parseScaled, rescale, roundDiv } from '../../kit/decimal.ts';
import { addDays, isCalendarDay, ukClock } from '../../kit/uk-time.ts';
import type { AuditLog } from '../audit/index.ts';
import { statementErrors } from './errors.ts';
import * as store from './store.ts';

export const STATEMENT_TYPE = 'fleet_savings_statement';
export const FORMAT_VERSION = 1;
export const BASELINE_METHOD = 'reference_period_mean_daily_import';
export const VERIFY_PATH = '/api/vpp/vpp/fleet-statements/public/verify/';

export const BASELINE_METHOD_TEXT =
  'Mean daily grid import of the site over the reference period: the sum of the energy model’s import (kWh) of the UK days ' +
  'that hold data, divided by the number of those days, to the watt-hour.';
export const KWH_METHOD = 'Savings (kWh) = the baseline’s mean daily import × the UK days of the period that hold data − the measured import of those days.';
export const GBP_METHOD = 'Savings (£) = savings (kWh) × the baseline’s agreed tariff (pence per kWh) ÷ 100, rounded to the penny.';
export const CO2E_METHOD =
  'Avoided emissions (kg CO2e) = each UK day’s saving (kWh) × the DESNZ UK electricity generation factor of the day’s calendar year ' +
  '(the latest published year before it where none is published), summed, to the gram. Location-based.';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MAX_DAYS = 366;

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

const kwh = (wh: bigint) => formatScaled(wh, 3);
/** Decimal kWh text from the energy model to integer Wh (rounded half away from zero past 3 places). */
function whOf(text: string): bigint {
  const places = Math.max(3, (text.split('.')[1] ?? '').length);
  const v = parseScaled(text, places);
  if (v === null) throw new Error(`not a decimal: ${text}`);
  return rescale(v, places, 3);
}

function daysBetween(from: string, toInclusive: string) {
  return Math.round((Date.parse(`${toInclusive}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

function checkPeriod(loc: string, from: string, to: string, today: string) {
  if (!isCalendarDay(from)) throw statementErrors.invalid(['body', `${loc}_from`], 'Not a valid date (YYYY-MM-DD)', from);
  if (!isCalendarDay(to)) throw statementErrors.invalid(['body', `${loc}_to`], 'Not a valid date (YYYY-MM-DD)', to);
  if (to < from) throw statementErrors.invalid(['body', `${loc}_to`], `${loc}_to must not be before ${loc}_from`, to);
  if (daysBetween(from, to) > MAX_DAYS) throw statementErrors.invalid(['body', `${loc}_to`], `A ${loc} covers at most ${MAX_DAYS} days`, to);
  if (to >= today) throw statementErrors.invalid(['body', `${loc}_to`], `${loc}_to must be a UK day that has ended`, to);
}

/** The generation factor of a year: that year's, or the latest earlier one. */
function factorFor(list: FactorVersionRow[], year: number) {
  return list.find((f) => f.year === year) ?? list.filter((f) => f.year < year).sort((a, b) => b.year - a.year)[0] ?? null;
}

export function baselineView(b: store.BaselineRow) {
  return {
    baseline_id: b.baseline_id,
    site_id: b.site_id,
    status: b.status,
    method: b.method,
    method_description: BASELINE_METHOD_TEXT,
    reference_from: b.reference_from,
    reference_to: b.reference_to,
    figures: b.figures as unknown as BaselineFigures,
    tariff_pence_per_kwh: b.tariff_pence_per_kwh,
    note: b.note,
    proposed_by: b.proposed_by,
    proposed_at: isoTime(b.proposed_at),
    agreed_by: b.agreed_by,
    agreed_at: b.agreed_at ? isoTime(b.agreed_at) : null,
    withdrawn_by: b.withdrawn_by,
    withdrawn_at: b.withdrawn_at ? isoTime(b.withdrawn_at) : null,
    withdrawn_reason: b.withdrawn_reason,
  };
}

export interface BaselineFigures {
  reference_days: number;
  days_with_data: number;
  complete_half_hours: number;
  measured_half_hours: number;
  half_hours: number;
  reference_import_kwh: string;
  mean_daily_import_kwh: string;
  data_basis: 'measured' | 'calculated';
}

/** What a statement records. Every member is signed; figures are decimal strings. */
export interface StatementBody {
  type: typeof STATEMENT_TYPE;
  version: typeof FORMAT_VERSION;
  statement_id: string;
  organisation_id: string;
  site_id: string;
  period_from: string;
  period_to: string;
  baseline: {
    baseline_id: string;
    method: string;
    reference_from: string;
    reference_to: string;
    mean_daily_import_kwh: string;
    tariff_pence_per_kwh: string;
    agreed_at: string;
    agreed_by: string | null;
  };
  days: number;
  days_with_data: number;
  expected_import_kwh: string;
  actual_import_kwh: string;
  savings: {
    kwh: { value: string; data_basis: string; method: string };
    gbp: { value: string; data_basis: string; method: string };
    co2e_kg: { value: string; data_basis: string; method: string; factors: { year: number; kg_per_kwh: string; source: string }[] };
  };
  issued_at: string;
  kid: string;
}

const str = (v: unknown) => typeof v === 'string' && v.length > 0;
const obj = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v);
const STATEMENT_MEMBERS: Record<keyof StatementBody, (v: unknown) => boolean> = {
  type: (v) => v === STATEMENT_TYPE,
  version: (v) => v === FORMAT_VERSION,
  statement_id: str,
  organisation_id: str,
  site_id: str,
  period_from: (v) => typeof v === 'string' && DAY.test(v),
  period_to: (v) => typeof v === 'string' && DAY.test(v),
  baseline: obj,
  days: (v) => Number.isSafeInteger(v),
  days_with_data: (v) => Number.isSafeInteger(v),
  expected_import_kwh: str,
  actual_import_kwh: str,
  savings: obj,
  issued_at: str,
  kid: str,
};

export function statementView(r: store.StatementRow) {
  const b = JSON.parse(r.signed_body) as StatementBody;
  return {
    statement_id: r.statement_id,
    statement_hash: r.statement_hash,
    organisation_id: b.organisation_id,
    site_id: b.site_id,
    period_from: b.period_from,
    period_to: b.period_to,
    baseline: b.baseline,
    days: b.days,
    days_with_data: b.days_with_data,
    expected_import_kwh: b.expected_import_kwh,
    actual_import_kwh: b.actual_import_kwh,
    savings: b.savings,
    issued_at: b.issued_at,
    ...signatureMembers(r.kid, r.signature, r.signed_body),
    verify_path: VERIFY_PATH + r.statement_hash,
  };
}
export type StatementView = ReturnType<typeof statementView>;

export function createStatementService(
  deps: Pick<AppDeps, 'db' | 'clock' | 'cursors'> & { audit: AuditLog; energy: EnergyFigures; sites: RegistrySites },
  keys: Keyring,
) {
  const { db, clock, cursors, audit, energy, sites } = deps;
  const keyCache = new Map<string, KeyObject>();

  async function keyLookup(): Promise<KeyLookup> {
    for (const k of await keys.published()) if (!keyCache.has(k.key_id)) keyCache.set(k.key_id, createPublicKey(k.public_key_pem));
    return (kid) => keyCache.get(kid);
  }

  const ukToday = () => ukClock(clock.now().getTime()).date;

  async function siteMustExist(orgId: string, siteId: string) {
    const assets = await sites.assets(db, orgId, { siteId });
    if (!assets.length) throw statementErrors.siteNotFound();
  }

  async function days(orgId: string, siteId: string, from: string, toInclusive: string): Promise<SiteDayRow[]> {
    return energy.siteDays(db, orgId, siteId, from, addDays(toInclusive, 1));
  }

  async function owned(orgId: string, id: string) {
    const b = await store.baselineById(db, orgId, id);
    if (!b) throw errors.notFound();
    return b;
  }

  async function transition(ctx: RequestContext, id: string, to: 'agreed' | 'withdrawn', reason?: string) {
    return db.tx(async (q) => {
      const b = await store.baselineById(q, ctx.orgId, id, true);
      if (!b) throw errors.notFound();
      if (b.status !== 'proposed') throw statementErrors.baselineNotProposed(b.status);
      // Agreement is the other party's: the proposer may withdraw, never agree (decision 0301).
      if (to === 'agreed' && b.proposed_by !== null && b.proposed_by === actorId(ctx)) throw statementErrors.selfAgreement();
      const now = clock.now();
      if (to === 'agreed') await store.agreeBaseline(q, ctx.orgId, id, actorId(ctx), now);
      else await store.withdrawBaseline(q, ctx.orgId, id, actorId(ctx), now, reason ?? null);
      await audit.record(q, ctx, {
        action: to === 'agreed' ? 'statements.baseline.agree' : 'statements.baseline.withdraw',
        targetType: 'statement_baseline',
        targetId: id,
        details: { site_id: b.site_id, ...(reason ? { reason } : {}) },
      });
      return baselineView((await store.baselineById(q, ctx.orgId, id))!);
    });
  }

  return {
    keyLookup,

    async listBaselines(ctx: RequestContext, siteId: string) {
      await siteMustExist(ctx.orgId, siteId);
      return { site_id: siteId, baselines: (await store.baselinesOfSite(db, ctx.orgId, siteId)).map(baselineView) };
    },

    async propose(
      ctx: RequestContext,
      siteId: string,
      input: { reference_from: string; reference_to: string; method?: string; tariff_pence_per_kwh: string; note?: string },
    ) {
      checkPeriod('reference', input.reference_from, input.reference_to, ukToday());
      if (parseScaled(input.tariff_pence_per_kwh, 4) === null) {
        throw statementErrors.invalid(['body', 'tariff_pence_per_kwh'], 'At most 4 decimal places', input.tariff_pence_per_kwh);
      }
      await siteMustExist(ctx.orgId, siteId);
      const rows = await days(ctx.orgId, siteId, input.reference_from, input.reference_to);
      const withData = rows.filter((r) => r.half_hours > 0);
      if (!withData.length) throw statementErrors.noEnergyData('reference period');
      let wh = 0n;
      for (const r of withData) wh += whOf(r.import_kwh);
      const hh = withData.reduce((n, r) => n + r.half_hours, 0);
      const measured = withData.reduce((n, r) => n + r.measured_half_hours, 0);
      const figures: BaselineFigures = {
        reference_days: daysBetween(input.reference_from, input.reference_to),
        days_with_data: withData.length,
        half_hours: hh,
        complete_half_hours: withData.reduce((n, r) => n + r.complete_half_hours, 0),
        measured_half_hours: measured,
        reference_import_kwh: kwh(wh),
        mean_daily_import_kwh: kwh(roundDiv(wh, BigInt(withData.length))),
        data_basis: measured === hh ? 'measured' : 'calculated',
      };
      const tariff = formatScaled(parseScaled(input.tariff_pence_per_kwh, 4)!, 4);
      const id = randomUUID();
      return db.tx(async (q) => {
        await store.insertBaseline(q, ctx.orgId, {
          baseline_id: id,
          site_id: siteId,
          method: input.method ?? BASELINE_METHOD,
          reference_from: input.reference_from,
          reference_to: input.reference_to,
          figures: figures as unknown as Record<string, unknown>,
          tariff_pence_per_kwh: tariff,
          note: input.note ?? null,
          proposed_by: actorId(ctx),
          proposed_at: clock.now(),
        });
        await audit.record(q, ctx, { action: 'statements.baseline.propose', targetType: 'statement_baseline', targetId: id, details: { site_id: siteId } });
        return baselineView((await store.baselineById(q, ctx.orgId, id))!);
      });
    },

    async baseline(ctx: RequestContext, id: string) {
      return baselineView(await owned(ctx.orgId, id));
    },

    agree: (ctx: RequestContext, id: string) => transition(ctx, id, 'agreed'),
    withdraw: (ctx: RequestContext, id: string, reason?: string) => transition(ctx, id, 'withdrawn', reason),

    async issue(ctx: RequestContext, siteId: string, input: { baseline_id: string; period_from: string; period_to: string }) {
      checkPeriod('period', input.period_from, input.period_to, ukToday());
      await siteMustExist(ctx.orgId, siteId);
      const b = await store.baselineById(db, ctx.orgId, input.baseline_id);
      if (!b || b.site_id !== siteId) throw statementErrors.invalid(['body', 'baseline_id'], 'No baseline of this site has this id', input.baseline_id);
      if (b.status !== 'agreed') throw statementErrors.baselineNotAgreed(b.status);
      const key = await keys.active();
      if (!key) throw statementErrors.signingKeyNotConfigured();
      const rows = (await days(ctx.orgId, siteId, input.period_from, input.period_to)).filter((r) => r.half_hours > 0);
      if (!rows.length) throw statementErrors.noEnergyData('statement period');
      const factors = await energy.factorVersions(db);
      const mean = parseScaled(b.figures.mean_daily_import_kwh as string, 3)!;
      const tariff = parseScaled(b.tariff_pence_per_kwh, 4)!;
      let actual = 0n;
      let co2 = 0n; // 1e-8 kg
      const used = new Map<number, FactorVersionRow>();
      let complete = true;
      for (const r of rows) {
        const wh = whOf(r.import_kwh);
        actual += wh;
        if (r.measured_half_hours !== r.half_hours || r.complete_half_hours !== r.half_hours) complete = false;
        const f = factorFor(factors, Number(r.day.slice(0, 4)));
        if (f) {
          used.set(f.year, f);
          co2 += (mean - wh) * parseScaled(f.generation_kg_per_kwh, 5)!;
        }
      }
      const expected = mean * BigInt(rows.length);
      const saved = expected - actual;
      const basis = complete && b.figures.data_basis === 'measured' ? 'measured' : 'calculated';
      const now = clock.now();
      const body: StatementBody = {
        type: STATEMENT_TYPE,
        version: FORMAT_VERSION,
        statement_id: randomUUID(),
        organisation_id: ctx.orgId,
        site_id: siteId,
        period_from: input.period_from,
        period_to: input.period_to,
        baseline: {
          baseline_id: b.baseline_id,
          method: b.method,
          reference_from: b.reference_from,
          reference_to: b.reference_to,
          mean_daily_import_kwh: kwh(mean),
          tariff_pence_per_kwh: b.tariff_pence_per_kwh,
          agreed_at: isoInstant(b.agreed_at!),
          agreed_by: b.agreed_by,
        },
        days: daysBetween(input.period_from, input.period_to),
        days_with_data: rows.length,
        expected_import_kwh: kwh(expected),
        actual_import_kwh: kwh(actual),
        savings: {
          kwh: {
            value: kwh(saved),
            data_basis: basis === 'measured' ? 'calculated from measured import' : 'calculated from partly estimated import',
            method: KWH_METHOD,
          },
          gbp: { value: formatScaled(roundDiv(saved * tariff, 10_000_000n), 2), data_basis: 'calculated at the agreed tariff', method: GBP_METHOD },
          co2e_kg: {
            value: formatScaled(roundDiv(co2, 100_000n), 3),
            data_basis: 'calculated with published DESNZ factors',
            method: CO2E_METHOD,
            factors: [...used.values()].sort((a, b) => a.year - b.year).map((f) => ({ year: f.year, kg_per_kwh: f.generation_kg_per_kwh, source: f.source })),
          },
        },
        issued_at: isoInstant(now),
        kid: key.keyId,
      };
      const signed = signBody(body, key.privateKey);
      return db.tx(async (q) => {
        const row = {
          statement_id: body.statement_id,
          site_id: siteId,
          baseline_id: b.baseline_id,
          statement_hash: signed.hash,
          signed_body: signed.signed_body,
          signature: signed.signature,
          kid: key.keyId,
          issued_at: now,
        };
        await store.insertStatement(q, ctx.orgId, { ...row, period_from: input.period_from, period_to: input.period_to, issued_by: actorId(ctx) });
        await audit.record(q, ctx, {
          action: 'statements.statement.issue',
          targetType: 'fleet_statement',
          targetId: body.statement_id,
          details: { site_id: siteId, baseline_id: b.baseline_id, statement_hash: signed.hash, savings_kwh: body.savings.kwh.value },
        });
        return statementView(row);
      });
    },

    async list(ctx: RequestContext, query: { site_id?: string; limit?: number; cursor?: string }) {
      const filters = { site_id: query.site_id };
      const binding = { op: 'listFleetStatements', orgId: ctx.orgId, filters };
      let before: { t: Date; id: string } | null = null;
      if (query.cursor) {
        const c = cursors.decode(query.cursor, binding);
        const t = new Date(String(c.t));
        if (!Number.isFinite(t.getTime()) || typeof c.id !== 'string') throw invalidCursor();
        before = { t, id: c.id };
      }
      const limit = query.limit ?? 50;
      const rows = await store.listStatements(db, ctx.orgId, filters, before, limit + 1);
      const page = toPage(rows, limit, (r) => ({ t: new Date(r.issued_at).toISOString(), id: r.statement_id }), cursors, binding);
      return { statements: page.items.map(statementView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async get(ctx: RequestContext, id: string) {
      const r = await store.statementById(db, ctx.orgId, id);
      if (!r) throw errors.notFound();
      return statementView(r);
    },

    /** Public: the statement its hash names, checked afresh, with the key that signed it. */
    async verifyByHash(hash: string) {
      const r = await store.statementByHash(db, hash);
      if (!r) throw errors.notFound();
      const keyOf = await keyLookup();
      const c = checkSigned<StatementBody>({ signed_body: r.signed_body, signature: r.signature }, keyOf, STATEMENT_MEMBERS);
      const key = (await keys.published()).find((k) => k.key_id === r.kid) ?? null;
      return {
        valid: c.problems.length === 0 && c.hash === hash,
        statement_hash: hash,
        recorded: true,
        problems: c.problems,
        statement: JSON.parse(r.signed_body) as StatementBody,
        signed_body: r.signed_body,
        signature: r.signature,
        signature_algorithm: 'Ed25519' as const,
        key,
        verified_at: isoInstant(clock.now()),
      };
    },

    /** Public: a copy someone presents, checked from its published form, then against our record. */
    async verifyPresented(input: { signed_body: string; signature: string; statement_hash?: string }) {
      const keyOf = await keyLookup();
      const c = checkSigned<StatementBody>({ signed_body: input.signed_body, signature: input.signature }, keyOf, STATEMENT_MEMBERS);
      const problems = [...c.problems];
      if (input.statement_hash !== undefined && input.statement_hash !== c.hash) {
        problems.push({ code: 'hash_mismatch', message: 'statement_hash is not the SHA-256 of the signed body' });
      }
      const held = c.hash ? await store.statementByHash(db, c.hash) : null;
      if (!held) problems.push({ code: 'not_recorded', message: 'The service issued no statement with these signed bytes' });
      else if (held.signature !== input.signature && !problems.some((p) => p.code.endsWith('signature'))) {
        // A second valid signature over the same bytes is not ours: Ed25519 signatures are deterministic.
        problems.push({ code: 'signature_mismatch', message: 'The signature is not the one the service issued' });
      }
      return {
        // A refused copy says so in `detail`, as every refusal does.
        ...(problems.length ? { detail: `Statement does not verify: ${problems.map((p) => p.code).join(', ')}` } : {}),
        valid: problems.length === 0,
        statement_hash: c.hash,
        recorded: held !== null,
        problems,
        verified_at: isoInstant(clock.now()),
      };
    },
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
export { sha256Hex };
