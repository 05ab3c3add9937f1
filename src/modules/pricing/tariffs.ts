// Retail tariffs: versioned and append only. Create stores version 1; a new version is appended
// (never changed in place) and must start after every stored version; each version is in force
// from its effective_from until its own effective_to or the next version's start. Validate judges
// terms without storing. Bill, compare: calculated from the caller's consumption.
import { isoTime } from '../../platform/schema-kit.ts';
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { fieldError, type FieldError } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { parseScaled, formatScaled } from '../../kit/decimal.ts';
import { parseInstant, SLOT_MS } from '../../kit/uk-time.ts';
import { billTariff, compileVersions, BillProblems, type Bill, type StoredVersion } from './billing.ts';
import { pricingErrors } from './errors.ts';
import { actorId, parseHalfHours, validDate } from './library.ts';
import { Q, q } from './money.ts';
import { tariffStore, type TariffRow, type VersionRow } from './store.ts';
import { checkVersion, type VersionTerms } from './terms.ts';

export interface BillRequest {
  from: string;
  to: string;
  consumption: { start: string; kwh: string | number }[];
  prices?: { start: string; rate_p_per_kwh: string | number }[];
}

function versionView(v: VersionRow | (StoredVersion & { created_at: Date; created_by: string | null }), until: string | null) {
  const terms = v.terms as unknown as VersionTerms;
  return {
    version: v.version,
    effective_from: v.effective_from,
    effective_to: v.effective_to,
    in_force_until: until,
    vat_rate_percent: terms.vat_rate_percent,
    standing_charge_p_per_day: terms.standing_charge_p_per_day,
    unit_rates: terms.unit_rates,
    created_at: isoTime(v.created_at),
  };
}

function tariffView(t: TariffRow, versions: VersionRow[]) {
  const compiled = compileVersions(
    versions.map((v) => ({ version: v.version, effective_from: v.effective_from, effective_to: v.effective_to, terms: v.terms as unknown as VersionTerms })),
  );
  const until = new Map(compiled.map((c) => [c.version, c.until]));
  return {
    tariff_id: t.tariff_id,
    name: t.name,
    description: t.description,
    supply_type: t.supply_type,
    created_at: isoTime(t.created_at),
    versions: versions.map((v) => versionView(v, until.get(v.version) ?? null)),
  };
}

function checkHeader(body: Record<string, unknown>, errs: FieldError[]) {
  if (typeof body.name !== 'string' || body.name.trim().length === 0 || body.name.length > 200)
    errs.push(fieldError(['body', 'name'], 'name missing: 1 to 200 characters', body.name ?? null, body.name === undefined ? 'missing' : 'value_error'));
  if (body.supply_type !== 'domestic' && body.supply_type !== 'business')
    errs.push(
      fieldError(
        ['body', 'supply_type'],
        'supply_type missing: domestic or business',
        body.supply_type ?? null,
        body.supply_type === undefined ? 'missing' : 'value_error',
      ),
    );
  if (body.description !== undefined && body.description !== null && (typeof body.description !== 'string' || body.description.length > 2000))
    errs.push(fieldError(['body', 'description'], 'description must be text of at most 2000 characters', body.description));
}

/** A new version after the stored ones: it must start after every stored version starts and after any stated end. */
function overlapWith(existing: VersionRow[], terms: VersionTerms): string | null {
  for (const v of existing) {
    if (terms.effective_from <= v.effective_from)
      return `Effective dates overlap version ${v.version} (effective from ${v.effective_from}): a new version must start after every stored version; versions are never changed in place`;
    if (v.effective_to !== null && terms.effective_from < v.effective_to)
      return `Effective dates overlap version ${v.version} (in force ${v.effective_from} to ${v.effective_to}): a new version must start on or after ${v.effective_to}`;
  }
  return null;
}

export function createTariffs(deps: { db: Db; clock: Clock; audit: AuditLog; cursors: CursorCodec }) {
  const { db, clock, audit, cursors } = deps;

  async function loadCompiled(ctx: RequestContext, ids: string[]) {
    const tariffs = await tariffStore.many(db, ctx.orgId, ids);
    if (tariffs.length !== new Set(ids).size) throw pricingErrors.tariffUnknown();
    const rows = await tariffStore.versions(db, ctx.orgId, ids);
    return tariffs.map((t) => ({
      tariff: t,
      versions: compileVersions(
        rows
          .filter((r) => r.tariff_id === t.tariff_id)
          .map((r) => ({ version: r.version, effective_from: r.effective_from, effective_to: r.effective_to, terms: r.terms as unknown as VersionTerms })),
      ),
    }));
  }

  function billInputs(body: BillRequest) {
    const errs: FieldError[] = [];
    if (!validDate(body.from)) errs.push(fieldError(['body', 'from'], 'from must be a date, YYYY-MM-DD (the first UK local day of the bill)', body.from));
    if (!validDate(body.to)) errs.push(fieldError(['body', 'to'], 'to must be a date, YYYY-MM-DD (the day after the last day of the bill)', body.to));
    else if (validDate(body.from) && body.to <= body.from)
      errs.push(fieldError(['body', 'to'], 'to must be after from (it is the day after the last day of the bill)', body.to));
    else if (validDate(body.from) && Date.parse(body.to) - Date.parse(body.from) > 367 * 86_400_000)
      errs.push(fieldError(['body', 'to'], 'a bill covers at most 367 days', body.to));
    if (errs.length) throw pricingErrors.fields(errs);
    const consumption = parseHalfHours(body.consumption, ['body', 'consumption']);
    let prices: Map<number, bigint> | null = null;
    if (body.prices) {
      prices = new Map();
      for (let i = 0; i < body.prices.length && errs.length < 20; i++) {
        const p = body.prices[i];
        const t = parseInstant(p.start);
        if (t === null || t % SLOT_MS !== 0 || !/[Tt]/.test(p.start)) {
          errs.push(fieldError(['body', 'prices', i, 'start'], 'start must be an ISO 8601 date-time with an offset, at the start of a half hour', p.start));
          continue;
        }
        const v = parseScaled(typeof p.rate_p_per_kwh === 'number' ? String(p.rate_p_per_kwh) : p.rate_p_per_kwh, Q);
        if (v === null) {
          errs.push(
            fieldError(
              ['body', 'prices', i, 'rate_p_per_kwh'],
              'rate_p_per_kwh must be a decimal with at most 6 decimal places (VAT exclusive; may be negative)',
              p.rate_p_per_kwh,
            ),
          );
          continue;
        }
        if (prices.has(t)) {
          errs.push(fieldError(['body', 'prices', i, 'start'], 'this half hour has a price already', p.start));
          continue;
        }
        prices.set(t, v);
      }
      if (errs.length) throw pricingErrors.fields(errs);
    }
    return { consumption, prices };
  }

  function bill(t: { tariff: TariffRow; versions: ReturnType<typeof compileVersions> }, body: BillRequest, inputs: ReturnType<typeof billInputs>): Bill {
    try {
      return billTariff({ tariff: t.tariff, versions: t.versions, consumption: inputs.consumption, prices: inputs.prices, from: body.from, to: body.to });
    } catch (e) {
      if (e instanceof BillProblems) throw pricingErrors.fields(e.fields);
      throw e;
    }
  }

  /** A version of a tariff stored and its making audited (`action`: the tariff's creation or a new version); the stored version. */
  async function addVersionRow(
    tx: Queryable,
    ctx: RequestContext,
    tariffId: string,
    version: number,
    terms: VersionTerms,
    now: Date,
    action: string,
  ): Promise<VersionRow> {
    const v = {
      tariff_id: tariffId,
      version,
      effective_from: terms.effective_from,
      effective_to: terms.effective_to,
      terms: terms as unknown as Record<string, unknown>,
    };
    await tariffStore.insertVersion(tx, ctx.orgId, v, actorId(ctx), now);
    await audit.record(tx, ctx, { action, targetType: 'retail_tariff', targetId: tariffId, details: { version, effective_from: terms.effective_from } });
    return { ...v, created_at: now, created_by: actorId(ctx) };
  }

  return {
    /** Field errors of a create (or, with tariff_id, a new version) body; nothing stored. */
    async validate(ctx: RequestContext, body: Record<string, unknown>) {
      const errs: FieldError[] = [];
      const tariffId = body.tariff_id;
      if (tariffId !== undefined && typeof tariffId !== 'string') errs.push(fieldError(['body', 'tariff_id'], 'tariff_id must be text', tariffId));
      if (tariffId === undefined) checkHeader(body, errs);
      const { errors: verrs, terms } = checkVersion(body.version, ['body', 'version']);
      errs.push(...verrs);
      let overlap: string | null = null;
      if (typeof tariffId === 'string') {
        const t = await tariffStore.get(db, ctx.orgId, tariffId);
        if (!t) throw pricingErrors.tariffUnknown();
        if (terms) overlap = overlapWith(await tariffStore.versions(db, ctx.orgId, [tariffId]), terms);
        if (overlap) errs.push(fieldError(['body', 'version', 'effective_from'], overlap, terms!.effective_from));
      }
      return {
        valid: errs.length === 0,
        errors: errs.map((e) => ({ loc: e.loc, msg: e.msg, type: e.type })),
        checked: typeof tariffId === 'string' ? ('new_version' as const) : ('new_tariff' as const),
      };
    },

    async create(ctx: RequestContext, body: Record<string, unknown>) {
      const errs: FieldError[] = [];
      checkHeader(body, errs);
      for (const k of Object.keys(body))
        if (!['name', 'description', 'supply_type', 'version'].includes(k)) errs.push(fieldError(['body', k], `unknown member ${k}`, body[k]));
      const { errors: verrs, terms } = checkVersion(body.version, ['body', 'version']);
      errs.push(...verrs);
      if (errs.length || !terms) throw pricingErrors.fields(errs);
      const t = {
        tariff_id: randomUUID(),
        name: (body.name as string).trim(),
        description: (body.description as string | undefined) ?? null,
        supply_type: body.supply_type as string,
      };
      const now = clock.now();
      return db.tx(async (tx) => {
        await tariffStore.insert(tx, ctx.orgId, t, actorId(ctx), now);
        const v = await addVersionRow(tx, ctx, t.tariff_id, 1, terms, now, 'pricing.tariff.create');
        return tariffView({ ...t, created_at: now }, [v]);
      });
    },

    async addVersion(ctx: RequestContext, tariffId: string, body: unknown) {
      const { errors: errs, terms } = checkVersion(body, ['body']);
      const now = clock.now();
      return db.tx(async (tx) => {
        const t = await tariffStore.get(tx, ctx.orgId, tariffId, { forUpdate: true });
        if (!t) throw pricingErrors.tariffUnknown();
        if (errs.length || !terms) throw pricingErrors.fields(errs);
        const existing = await tariffStore.versions(tx, ctx.orgId, [tariffId]);
        const overlap = overlapWith(existing, terms);
        if (overlap) throw pricingErrors.versionOverlap(overlap);
        const version = existing.reduce((m, v) => Math.max(m, v.version), 0) + 1;
        const v = await addVersionRow(tx, ctx, tariffId, version, terms, now, 'pricing.tariff.version');
        return tariffView(t, [...existing, v]);
      });
    },

    async get(ctx: RequestContext, tariffId: string) {
      const t = await tariffStore.get(db, ctx.orgId, tariffId);
      if (!t) throw pricingErrors.tariffUnknown();
      return tariffView(t, await tariffStore.versions(db, ctx.orgId, [tariffId]));
    },

    async list(ctx: RequestContext, query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listRetailTariffs', orgId: ctx.orgId };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await tariffStore.page(db, ctx.orgId, { before: paged.after, limit }), (r) => ({ t: isoTime(r.created_at), id: r.tariff_id }));
      return {
        tariffs: page.items.map((r) => ({
          tariff_id: r.tariff_id,
          name: r.name,
          description: r.description,
          supply_type: r.supply_type,
          versions: r.versions,
          latest_effective_from: r.latest_effective_from,
          created_at: isoTime(r.created_at),
        })),
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },

    async bill(ctx: RequestContext, body: BillRequest & { tariff_id: string }) {
      const inputs = billInputs(body);
      const [t] = await loadCompiled(ctx, [body.tariff_id]);
      return bill(t, body, inputs);
    },

    async compare(ctx: RequestContext, body: BillRequest & { tariff_ids: string[] }) {
      const ids = [...new Set(body.tariff_ids)];
      if (ids.length < 2) throw pricingErrors.field(['tariff_ids'], 'compare needs at least two different tariffs', body.tariff_ids);
      const inputs = billInputs(body);
      const loaded = await loadCompiled(ctx, ids);
      const bills = ids.map((id) => bill(loaded.find((l) => l.tariff.tariff_id === id)!, body, inputs));
      return compareBills(bills);
    },
  };
}

export type Tariffs = ReturnType<typeof createTariffs>;

const sumKind = (b: Bill, kind: 'standing_charge' | 'unit') => b.lines.filter((l) => l.kind === kind).reduce((s, l) => s + q(l.amount_gbp), 0n);

/** Bills ranked cheapest first (equal totals share a rank), each with its difference from the cheapest explained. */
export function compareBills(bills: Bill[]) {
  const sorted = [...bills].sort((a, b) => {
    const d = q(a.totals.total_gbp) - q(b.totals.total_gbp);
    return d < 0n ? -1 : d > 0n ? 1 : a.name.localeCompare(b.name) || a.tariff_id.localeCompare(b.tariff_id);
  });
  const best = sorted[0];
  let rank = 0;
  let prev: bigint | null = null;
  const gbp = (v: bigint) => formatScaled(v, Q, 2);
  const ranked = sorted.map((b, i) => {
    const total = q(b.totals.total_gbp);
    if (prev === null || total !== prev) rank = i + 1;
    prev = total;
    const dStanding = sumKind(b, 'standing_charge') - sumKind(best, 'standing_charge');
    const dUnit = sumKind(b, 'unit') - sumKind(best, 'unit');
    const dVat = q(b.totals.vat_gbp) - q(best.totals.vat_gbp);
    const dTotal = total - q(best.totals.total_gbp);
    const word = (v: bigint) => (v > 0n ? `£${gbp(v)} more` : v < 0n ? `£${gbp(-v)} less` : 'the same');
    const explanation =
      b === best
        ? 'Cheapest on this consumption.'
        : dTotal === 0n
          ? `Costs the same as ${best.name}.`
          : `Costs £${gbp(dTotal)} more than ${best.name}: standing charges ${word(dStanding)}, unit charges ${word(dUnit)}, VAT ${word(dVat)}.`;
    return {
      rank,
      tariff_id: b.tariff_id,
      name: b.name,
      total_gbp: b.totals.total_gbp,
      difference_gbp: gbp(dTotal),
      difference: { standing_charges_gbp: gbp(dStanding), unit_charges_gbp: gbp(dUnit), vat_gbp: gbp(dVat) },
      explanation,
      bill: b,
    };
  });
  return { period: best.period, kwh: best.totals.kwh, ranked };
}
