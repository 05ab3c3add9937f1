// PostgreSQL's own CPU, for the benchmarks (issue 38): the CPU time of the server backends connected
// to the benchmark's database, read from /proc/<pid>/schedstat (nanoseconds on a core) when the
// server runs on this machine. Background processes shared by every database (WAL writer,
// checkpointer, autovacuum launcher) are left out, so a scratch database of its own makes the
// figure the benchmark's alone. A backend that exits inside a phase takes its time with it.
import { readFileSync } from 'node:fs';
import type pg from 'pg';

export type CpuSnapshot = Map<number, number>;

/** CPU (ns on a core) of one PostgreSQL backend so far; undefined when the server is not on this machine. */
export function backendNs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined; // another machine, or the backend has gone
  }
}

/** CPU so far (ns) of each backend of the client's database; empty when the server is not local. */
export async function pgCpu(client: pg.Client): Promise<CpuSnapshot> {
  const r = await client.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`);
  const out: CpuSnapshot = new Map();
  for (const { pid } of r.rows) {
    const ns = backendNs(pid);
    if (ns !== undefined) out.set(pid, ns);
  }
  return out;
}

/** Microseconds of PostgreSQL CPU per record between two snapshots (null when none was readable). */
export function pgCpuUsPerRecord(before: CpuSnapshot, after: CpuSnapshot, records: number): number | null {
  if (after.size === 0) return null;
  let ns = 0;
  for (const [pid, t] of after) ns += t - (before.get(pid) ?? 0);
  return ns / 1000 / Math.max(records, 1);
}

/**
 * What holds back the server's vacuum, said before a benchmark's figures: an inactive replication
 * slot keeping the xmin its standby last reported (`hot_standby_feedback`; ops/replica.sh stopped),
 * or a transaction open for over a minute. While held, rows that die (updates of the newest-reading
 * row, the catalogs' rows of every schema made and dropped) stay, and every run after a test suite
 * is slower for it (decision 0502's runs from 02:15 on 29 November). Null when nothing holds it.
 */
export async function vacuumHeldBack(client: pg.Client): Promise<string | null> {
  const held: string[] = [];
  const slots = await client.query<{ slot_name: string; behind: string }>(
    `select slot_name, (txid_current() - xmin::text::bigint)::text as behind
       from pg_replication_slots where not active and xmin is not null`,
  );
  for (const s of slots.rows)
    held.push(
      `the inactive replication slot ${s.slot_name} (its xmin ${s.behind} transactions back; start its standby with ops/replica.sh, or drop it with ops/replica.sh remove)`,
    );
  const old = await client.query<{ n: string }>(
    `select count(*)::text as n from pg_stat_activity where backend_xmin is not null and xact_start < now() - interval '1 minute'`,
  );
  if (old.rows[0] && old.rows[0].n !== '0') held.push(`${old.rows[0].n} transaction(s) open for over a minute`);
  return held.length ? `PostgreSQL's vacuum is held back by ${held.join(' and ')}: dead rows stay, figures may be slower` : null;
}
