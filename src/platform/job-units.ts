// One organisation's bad data fails only itself (decision 0285). A recurring job that works across
// organisations hands its work to `each()` as units (an organisation, or one key within it): each
// unit runs on its own (its own transactions), and a unit that throws is recorded and skipped
// while the next unit runs. A failing unit is retried with backoff (30 s doubling, at most 30 min)
// for `maxAttempts` runs; then it is quarantined: not tried again until an operator releases it
// (`cli job-units release`) or its long retry (every 6 h) succeeds. The failures are a counter
// (eps_job_unit_failures_total{kind}), the quarantined units a gauge read from the store
// (eps_job_units_quarantined{kind}, alerted on in ops/prometheus/alerts.yml), and a module that
// reports freshness asks `status()` to say its figures are held back rather than silently stale.
// What an organisation may see of a failure is its class (a SQLSTATE class name or an error's
// name), never the error's text; the text is logged and kept for the operator's CLI only.
import type { FastifyBaseLogger } from 'fastify';
import { StoreUnavailableError, type Db, type Queryable } from '../infra/db/index.ts';
import { unitStore, type UnitRow, type UnitFilter } from '../infra/jobs/units.ts';
import type { Clock } from './clock.ts';
import type { Metrics } from './metrics.ts';

export type { UnitRow, UnitFilter } from '../infra/jobs/units.ts';

/** Which unit a piece of work is: its organisation, and a key within it ('' = the whole organisation). */
export interface UnitRef {
  orgId: string;
  key?: string;
}

export interface UnitsRun {
  /** Units that ran and succeeded. */
  done: number;
  /** Units that ran and failed (retrying or newly quarantined). */
  failed: number;
  /** Units not tried this run (in backoff or quarantined). */
  skipped: number;
}

/** What an organisation may see of a unit's trouble. */
export interface UnitStatus {
  key: string;
  attempts: number;
  error_class: string;
  first_failed_at: Date;
  last_failed_at: Date;
  /** When it is tried next. */
  retry_at: Date;
  /** Set once its attempts are spent. */
  quarantined_at: Date | null;
}

export interface JobUnits {
  /**
   * Runs `work` for each unit in order, each on its own: a unit that throws is recorded (retried
   * later, then quarantined) and the others proceed. A unit in backoff or quarantine is skipped.
   * A platform failure (the store unavailable: `isPlatformFailure`) is thrown, not recorded.
   */
  each<U>(kind: string, units: Iterable<U>, unitOf: (u: U) => UnitRef, work: (u: U) => Promise<unknown>): Promise<UnitsRun>;
  /**
   * Records a failure of a unit found inside other work (a step that isolates organisations with
   * savepoints): the unit is then retried through `each` over `failing(kind)`.
   */
  fail(kind: string, ref: UnitRef, err: unknown): Promise<void>;
  /** Every failing or quarantined unit of this kind (across organisations), to retry through `each`. */
  failing(kind: string): Promise<Required<UnitRef>[]>;
  /** The failing (or quarantined) units of this kind of one organisation (for freshness answers). */
  status(q: Queryable, kind: string, orgId: string): Promise<UnitStatus[]>;
  /** Releases the units (out of quarantine, attempts reset): the next run tries them (a success forgets them). */
  release(q: Queryable, filter: UnitFilter & { kind: string; orgId: string }): Promise<number>;
}

export interface JobUnitsOptions {
  /** Where failures are recorded: the background store. */
  db: Db;
  clock: Clock;
  metrics: Metrics;
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** Failed runs of a unit before it is quarantined. */
  maxAttempts?: number;
  /** First retry delay; doubles with each failure up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A quarantined unit is tried once again after this long (and stays quarantined if it fails). */
  quarantineRetryMs?: number;
}

export const UNIT_DEFAULTS = { maxAttempts: 5, backoffMs: 30_000, maxBackoffMs: 30 * 60_000, quarantineRetryMs: 6 * 3_600_000 };

// SQLSTATE classes (the first two characters), named as PostgreSQL's appendix names them.
const SQLSTATE_CLASSES: Record<string, string> = {
  '08': 'connection_exception',
  '22': 'data_exception',
  '23': 'integrity_constraint_violation',
  '25': 'invalid_transaction_state',
  '40': 'transaction_rollback',
  '42': 'syntax_error_or_access_rule_violation',
  '53': 'insufficient_resources',
  '54': 'program_limit_exceeded',
  '55': 'object_not_in_prerequisite_state',
  '57': 'operator_intervention',
  '58': 'system_error',
  XX: 'internal_error',
};
const SQLSTATES: Record<string, string> = {
  '22003': 'numeric_value_out_of_range',
  '22008': 'datetime_field_overflow',
  '22012': 'division_by_zero',
  '22P02': 'invalid_text_representation',
  '23505': 'unique_violation',
  '40001': 'serialization_failure',
  '40P01': 'deadlock_detected',
  '57014': 'query_canceled',
};

/** A failure's class, safe to show: the SQLSTATE's name for a store error, else the error's name. */
export function errorClass(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return SQLSTATES[code] ?? SQLSTATE_CLASSES[code.slice(0, 2)] ?? `sqlstate_${code}`;
  if (err instanceof Error && /^[A-Za-z]{1,64}$/.test(err.name)) return err.name;
  return 'Error';
}

/**
 * A failure of the platform, not of a unit's data: the store unreachable or shutting down, out of
 * connections or resources. It is not held against the unit (an outage would quarantine every
 * organisation): the run stops and the job's next run tries again.
 */
export function isPlatformFailure(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (/^(08|53|58)/.test(code) || /^57P0[1-4]$/.test(code));
}

export function createJobUnits(opts: JobUnitsOptions): JobUnits {
  const { db, clock } = opts;
  const o = { ...UNIT_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([k, v]) => k in UNIT_DEFAULTS && v !== undefined)) } as typeof UNIT_DEFAULTS;
  const kinds = new Set<string>();
  const failures = opts.metrics.counter({
    name: 'job_unit_failures_total',
    help: 'Failed units (one organisation, or one key of it) of cross-organisation background jobs, by kind',
    labelNames: ['kind'],
  });
  opts.metrics.gauge({
    name: 'job_units_quarantined',
    help: 'Units of cross-organisation background jobs quarantined after their last attempt (skipped until released), by kind',
    labelNames: ['kind'],
    async collect(gauge) {
      const rows = await unitStore.quarantinedByKind(db);
      gauge.reset();
      for (const kind of kinds) gauge.set({ kind }, 0);
      for (const r of rows) gauge.set({ kind: r.kind }, r.n);
    },
  });

  async function failed(kind: string, ref: Required<UnitRef>, prior: UnitRow | undefined, err: unknown): Promise<void> {
    const now = clock.now();
    const attempts = (prior?.attempts ?? 0) + 1;
    const quarantine = prior?.quarantined_at ?? (attempts >= o.maxAttempts ? now : null);
    const delay = quarantine ? o.quarantineRetryMs : Math.min(o.backoffMs * 2 ** (attempts - 1), o.maxBackoffMs);
    const cls = errorClass(err);
    failures.inc({ kind });
    const fields = { err, kind, org_id: ref.orgId, unit: ref.key, attempts, error_class: cls };
    if (quarantine && !prior?.quarantined_at) opts.log?.error(fields, 'background unit quarantined after its last attempt; the other units go on');
    else opts.log?.warn(fields, 'background unit failed; the other units go on');
    await unitStore
      .fail(db, {
        kind,
        org_id: ref.orgId,
        unit_key: ref.key,
        attempts,
        error_class: cls,
        last_error: (err instanceof Error ? err.message : String(err)).slice(0, 1000),
        first_failed_at: prior?.first_failed_at ?? now,
        last_failed_at: now,
        retry_at: new Date(now.getTime() + delay),
        quarantined_at: quarantine,
      })
      .catch((e) => opts.log?.error({ err: e, kind, org_id: ref.orgId }, 'background unit failure not recorded'));
  }

  return {
    async each(kind, units, unitOf, work) {
      kinds.add(kind);
      const known = new Map((await unitStore.list(db, { kind })).map((r) => [`${r.org_id}\u0000${r.unit_key}`, r]));
      const run: UnitsRun = { done: 0, failed: 0, skipped: 0 };
      for (const u of units) {
        const r = unitOf(u);
        const ref = { orgId: r.orgId, key: r.key ?? '' };
        const prior = known.get(`${ref.orgId}\u0000${ref.key}`);
        if (prior && prior.retry_at.getTime() > clock.now().getTime()) {
          run.skipped++;
          continue;
        }
        try {
          await work(u);
        } catch (err) {
          if (isPlatformFailure(err)) throw err;
          run.failed++;
          await failed(kind, ref, prior, err);
          continue;
        }
        run.done++;
        if (prior) await unitStore.clear(db, kind, ref.orgId, ref.key).catch(() => {});
      }
      return run;
    },
    async fail(kind, ref, err) {
      kinds.add(kind);
      const key = ref.key ?? '';
      const prior = (await unitStore.list(db, { kind, orgId: ref.orgId, key }))[0];
      await failed(kind, { orgId: ref.orgId, key }, prior, err);
    },
    async failing(kind) {
      kinds.add(kind);
      return (await unitStore.list(db, { kind })).map((r) => ({ orgId: r.org_id, key: r.unit_key }));
    },
    async status(q, kind, orgId) {
      return (await unitStore.list(q, { kind, orgId })).map((r) => ({
        key: r.unit_key,
        attempts: r.attempts,
        error_class: r.error_class,
        first_failed_at: r.first_failed_at,
        last_failed_at: r.last_failed_at,
        retry_at: r.retry_at,
        quarantined_at: r.quarantined_at,
      }));
    },
    async release(q, filter) {
      return (await unitStore.release(q, filter)).length;
    },
  };
}

/** The operator's view (CLI): every failing or quarantined unit, with the error text. */
export const listUnits = (q: Queryable, filter: UnitFilter = {}) => unitStore.list(q, filter);
/** The operator's release (CLI): the matching units are out of quarantine and tried afresh at the next run. */
export const releaseUnits = (q: Queryable, filter: UnitFilter) => unitStore.release(q, filter);
