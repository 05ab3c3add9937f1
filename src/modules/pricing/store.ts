// Pricing SQL. Every function takes the organisation id first and filters on it. Dates come back
// as YYYY-MM-DD text and numerics as text (never through binary floating point).
import { firstRow, type Queryable } from '../../infra/db/index.ts';
import type { LibRate, LibSchedule } from './engine.ts';

// ---- Charge library ------------------------------------------------------------------------------

/** A charge-library rate as stored (the engine's LibRate, without its origin). */
export interface RateRow extends Omit<LibRate, 'origin'> {
  created_at: Date | null;
}

const RATE_COLS = `rate_id, component, rate::text as rate, distributor_id, line_loss_class, supply_type, band,
  valid_from::text as valid_from, valid_to::text as valid_to, source, created_at`;

/** A time-band schedule as stored (the engine's LibSchedule). */
export interface ScheduleRow extends LibSchedule {
  created_at: Date;
}

const SCHEDULE_COLS = `schedule_id, distributor_id, valid_from::text as valid_from, valid_to::text as valid_to, periods, source, created_at`;

/** Validity [from, to) overlapping [a, b) (null = open). */
const overlaps = (fromCol: string, toCol: string, a: string, b: string) =>
  `(${toCol} is null or ${toCol} > ${a}::date) and (${b}::date is null or ${fromCol} < ${b}::date)`;

export const libraryStore = {
  async rates(q: Queryable, orgId: string, filter: { component?: string; distributorId?: string } = {}): Promise<RateRow[]> {
    const params: unknown[] = [orgId];
    const where = ['org_id = $1'];
    if (filter.component) where.push(`component = $${params.push(filter.component)}`);
    if (filter.distributorId) where.push(`(distributor_id is null or distributor_id = $${params.push(filter.distributorId)})`);
    return (
      await q.query<RateRow>(
        `select ${RATE_COLS} from pricing_rates where ${where.join(' and ')} order by component, distributor_id nulls first, line_loss_class nulls first, supply_type nulls first, band nulls first, valid_from, rate_id`,
        params,
      )
    ).rows;
  },
  /** Rates of a component whose scope and validity overlap the given one (the clash check). */
  async clashingRates(q: Queryable, orgId: string, r: Omit<RateRow, 'rate_id' | 'rate' | 'source' | 'created_at'>): Promise<RateRow[]> {
    const scope = (col: string, i: number) => `(${col} is null or $${i}::text is null or ${col} = $${i})`;
    return (
      await q.query<RateRow>(
        `select ${RATE_COLS} from pricing_rates
         where org_id = $1 and component = $2 and ${scope('distributor_id', 3)} and ${scope('line_loss_class', 4)}
           and ${scope('supply_type', 5)} and ${scope('band', 6)} and ${overlaps('valid_from', 'valid_to', '$7', '$8')}
         order by valid_from`,
        [orgId, r.component, r.distributor_id, r.line_loss_class, r.supply_type, r.band, r.valid_from, r.valid_to],
      )
    ).rows;
  },
  async insertRate(q: Queryable, orgId: string, r: Omit<RateRow, 'created_at'>, by: string | null, now: Date): Promise<void> {
    await q.query(
      `insert into pricing_rates (org_id, rate_id, component, rate, distributor_id, line_loss_class, supply_type, band, valid_from, valid_to, source, created_at, created_by)
       values ($1, $2, $3, $4::numeric, $5, $6, $7, $8, $9::date, $10::date, $11, $12, $13)`,
      [orgId, r.rate_id, r.component, r.rate, r.distributor_id, r.line_loss_class, r.supply_type, r.band, r.valid_from, r.valid_to, r.source, now, by],
    );
  },
  async schedules(q: Queryable, orgId: string, distributorId?: string): Promise<ScheduleRow[]> {
    const params: unknown[] = [orgId];
    const where = ['org_id = $1'];
    if (distributorId) where.push(`distributor_id = $${params.push(distributorId)}`);
    return (
      await q.query<ScheduleRow>(`select ${SCHEDULE_COLS} from pricing_time_bands where ${where.join(' and ')} order by distributor_id, valid_from`, params)
    ).rows;
  },
  async clashingSchedules(q: Queryable, orgId: string, s: { distributor_id: string; valid_from: string; valid_to: string | null }): Promise<ScheduleRow[]> {
    return (
      await q.query<ScheduleRow>(
        `select ${SCHEDULE_COLS} from pricing_time_bands where org_id = $1 and distributor_id = $2 and ${overlaps('valid_from', 'valid_to', '$3', '$4')} order by valid_from`,
        [orgId, s.distributor_id, s.valid_from, s.valid_to],
      )
    ).rows;
  },
  async insertSchedule(q: Queryable, orgId: string, s: Omit<ScheduleRow, 'created_at'>, by: string | null, now: Date): Promise<void> {
    await q.query(
      `insert into pricing_time_bands (org_id, schedule_id, distributor_id, valid_from, valid_to, periods, source, created_at, created_by)
       values ($1, $2, $3, $4::date, $5::date, $6, $7, $8, $9)`,
      [orgId, s.schedule_id, s.distributor_id, s.valid_from, s.valid_to, JSON.stringify(s.periods), s.source, now, by],
    );
  },
  /** Serialises clash checks of one organisation's library writes (both stores). */
  async lock(q: Queryable, orgId: string, what: string): Promise<void> {
    await q.query('select pg_advisory_xact_lock(hashtext($1))', [`pricing:${what}:${orgId}`]);
  },
};

// ---- MPANs ---------------------------------------------------------------------------------------

export interface MpanRow {
  mpan_core: string;
  distributor_id: string;
  line_loss_class: string;
  connection_voltage: string;
  supply_type: string;
  agreed_capacity_kva: string | null;
  site_id: string | null;
  label: string | null;
  created_at: Date;
}

const MPAN_COLS = `mpan_core, distributor_id, line_loss_class, connection_voltage, supply_type, agreed_capacity_kva::text as agreed_capacity_kva, site_id, label, created_at`;

export const mpanStore = {
  async get(q: Queryable, orgId: string, core: string): Promise<MpanRow | null> {
    return firstRow<MpanRow>(q, `select ${MPAN_COLS} from pricing_mpans where org_id = $1 and mpan_core = $2`, [orgId, core]);
  },
  /** False when the organisation has registered this MPAN already. */
  async insert(q: Queryable, orgId: string, m: Omit<MpanRow, 'created_at'>, by: string | null, now: Date): Promise<boolean> {
    const r = await q.query(
      `insert into pricing_mpans (org_id, mpan_core, distributor_id, line_loss_class, connection_voltage, supply_type, agreed_capacity_kva, site_id, label, created_at, created_by)
       values ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9, $10, $11) on conflict do nothing`,
      [orgId, m.mpan_core, m.distributor_id, m.line_loss_class, m.connection_voltage, m.supply_type, m.agreed_capacity_kva, m.site_id, m.label, now, by],
    );
    return (r.rowCount ?? 0) > 0;
  },
  async page(q: Queryable, orgId: string, opts: { before?: { t: string; id: string }; distributorId?: string; limit: number }): Promise<MpanRow[]> {
    const params: unknown[] = [orgId];
    const where = ['org_id = $1'];
    if (opts.distributorId) where.push(`distributor_id = $${params.push(opts.distributorId)}`);
    if (opts.before) {
      params.push(opts.before.t, opts.before.id);
      where.push(`(created_at, mpan_core) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(opts.limit + 1);
    return (
      await q.query<MpanRow>(
        `select ${MPAN_COLS} from pricing_mpans where ${where.join(' and ')} order by created_at desc, mpan_core desc limit $${params.length}`,
        params,
      )
    ).rows;
  },
};

// ---- Retail tariffs ------------------------------------------------------------------------------

export interface TariffRow {
  tariff_id: string;
  name: string;
  description: string | null;
  supply_type: string;
  created_at: Date;
}

export interface VersionRow {
  tariff_id: string;
  version: number;
  effective_from: string;
  effective_to: string | null;
  terms: Record<string, unknown>;
  created_at: Date;
  created_by: string | null;
}

const VERSION_COLS = `tariff_id, version, effective_from::text as effective_from, effective_to::text as effective_to, terms, created_at, created_by`;

export const tariffStore = {
  async get(q: Queryable, orgId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<TariffRow | null> {
    return firstRow<TariffRow>(
      q,
      `select tariff_id, name, description, supply_type, created_at from pricing_tariffs where org_id = $1 and tariff_id = $2${opts.forUpdate ? ' for update' : ''}`,
      [orgId, id],
    );
  },
  async insert(q: Queryable, orgId: string, t: Omit<TariffRow, 'created_at'>, by: string | null, now: Date): Promise<void> {
    await q.query(
      `insert into pricing_tariffs (org_id, tariff_id, name, description, supply_type, created_at, created_by) values ($1, $2, $3, $4, $5, $6, $7)`,
      [orgId, t.tariff_id, t.name, t.description, t.supply_type, now, by],
    );
  },
  async page(
    q: Queryable,
    orgId: string,
    opts: { before?: { t: string; id: string }; limit: number },
  ): Promise<(TariffRow & { versions: number; latest_effective_from: string })[]> {
    const params: unknown[] = [orgId];
    const where = ['t.org_id = $1'];
    if (opts.before) {
      params.push(opts.before.t, opts.before.id);
      where.push(`(t.created_at, t.tariff_id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(opts.limit + 1);
    return (
      await q.query<TariffRow & { versions: number; latest_effective_from: string }>(
        `select t.tariff_id, t.name, t.description, t.supply_type, t.created_at,
                (select count(*)::int from pricing_tariff_versions v where v.org_id = t.org_id and v.tariff_id = t.tariff_id) as versions,
                (select max(v.effective_from)::text from pricing_tariff_versions v where v.org_id = t.org_id and v.tariff_id = t.tariff_id) as latest_effective_from
         from pricing_tariffs t where ${where.join(' and ')} order by t.created_at desc, t.tariff_id desc limit $${params.length}`,
        params,
      )
    ).rows;
  },
  async versions(q: Queryable, orgId: string, ids: string[]): Promise<VersionRow[]> {
    return (
      await q.query<VersionRow>(
        `select ${VERSION_COLS} from pricing_tariff_versions where org_id = $1 and tariff_id = any($2::text[]) order by tariff_id, version`,
        [orgId, ids],
      )
    ).rows;
  },
  async many(q: Queryable, orgId: string, ids: string[]): Promise<TariffRow[]> {
    return (
      await q.query<TariffRow>(
        `select tariff_id, name, description, supply_type, created_at from pricing_tariffs where org_id = $1 and tariff_id = any($2::text[])`,
        [orgId, ids],
      )
    ).rows;
  },
  async insertVersion(q: Queryable, orgId: string, v: Omit<VersionRow, 'created_at' | 'created_by'>, by: string | null, now: Date): Promise<void> {
    await q.query(
      `insert into pricing_tariff_versions (org_id, tariff_id, version, effective_from, effective_to, terms, created_at, created_by)
       values ($1, $2, $3, $4::date, $5::date, $6, $7, $8)`,
      [orgId, v.tariff_id, v.version, v.effective_from, v.effective_to, JSON.stringify(v.terms), now, by],
    );
  },
};
