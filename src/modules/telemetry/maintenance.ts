// Monthly partitions made ahead, retention by whole months, and sealing of daily rollups. Runs at
// module start and then periodically on every instance: the SQL is idempotent and serialises
// concurrent maintainers with advisory locks, so several instances need no leader (decision 0045).
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobUnits } from '../../platform/job-units.ts';
import { createPartitionStore } from './store.ts';

export const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;
/** A day is sealed into rollups this long after it ends (late records are folded in anyway). */
export const SEAL_GRACE_MS = 2 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Sealing's units (decision 0285): an organisation's day. A step that cannot seal one
 * organisation's rows seals the others'; that organisation's day is then held out of sealing and
 * resealed whole, retried with backoff, then quarantined; its history reads that day from samples.
 */
export const SEAL_KIND = 'telemetry.seal';

function addUtcMonths(d: Date, months: number): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
}

/** `db` is the background store (its own connections and statement timeout, decision 0018). */
export function createPartitionMaintenance(deps: { db: Db; units: JobUnits; clock: Clock; log: FastifyBaseLogger; retentionDays: number }) {
  const store = createPartitionStore(deps.db);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** Partitions for (now - 1 month .. now + 2 months), then retention when configured. */
  async function partitions(): Promise<void> {
    const now = deps.clock.now();
    const made = await store.ensurePartitions(addUtcMonths(now, -1), addUtcMonths(now, 2));
    let dropped = 0;
    if (deps.retentionDays > 0) {
      // Whole months: a month goes once all of it is older than the retention period.
      dropped = await store.dropPartitionsBefore(addUtcMonths(new Date(now.getTime() - deps.retentionDays * DAY_MS), 0));
    }
    if (made || dropped) deps.log.info({ made, dropped }, 'telemetry: partition maintenance');
  }

  async function seal(): Promise<void> {
    const held = new Map<string, Set<string>>();
    for (const u of await deps.units.failing(SEAL_KIND)) held.set(u.key, (held.get(u.key) ?? new Set()).add(u.orgId));
    const hours = await store.sealDays(new Date(deps.clock.now().getTime() - SEAL_GRACE_MS), {
      held,
      onOrgFailed: (orgId, day, err) => deps.units.fail(SEAL_KIND, { orgId, key: day }, err),
    });
    if (hours) deps.log.info({ hours }, 'telemetry: hours sealed into daily rollups');
    // The organisations' days a step could not seal, once sealing is past them: each resealed whole.
    const horizon = (await store.horizon()) ?? -Infinity;
    const due = (await deps.units.failing(SEAL_KIND)).filter((u) => Date.parse(`${u.key}T00:00:00Z`) + DAY_MS <= horizon);
    await deps.units.each(
      SEAL_KIND,
      due,
      (u) => u,
      (u) => store.resealOrgDay(u.orgId, u.key),
    );
  }

  const failed = (what: string) => (err: unknown) => deps.log.warn({ err }, `telemetry: ${what} failed; retrying next interval`);

  /** One pass; sealing (possibly a long backlog on first start) continues in the background. */
  async function tick(): Promise<void> {
    if (running) return;
    await partitions().catch(failed('partition maintenance'));
    running = seal()
      .catch(failed('rollup sealing'))
      .finally(() => (running = undefined));
  }

  return {
    async start() {
      await tick();
      timer ??= setInterval(() => void tick(), MAINTENANCE_INTERVAL_MS);
      timer.unref();
    },
    /** Stops the timer and waits for a pass in progress (tests use stop to await a pass). */
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
