// The PostgreSQL hot standby of the real-server pass (ops/replica.sh, set up by .ci/run):
// TEST_DATABASE_READ_URL names it (any database on it; tests swap in their own database's name).
import pg from 'pg';
import { eventually } from './eventually.ts';

export const replicaUrl = process.env.TEST_DATABASE_READ_URL;

/** `url` with its database swapped for `name`. */
export function onDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function one<T>(url: string, sql: string): Promise<T> {
  const c = new pg.Client({ connectionString: onDatabase(url, 'postgres') });
  await c.connect();
  try {
    return (await c.query(sql)).rows[0] as T;
  } finally {
    await c.end();
  }
}

/**
 * Resolves once the standby has replayed everything the primary had written when called: waits on
 * the replay position (the standby's own work), never a fixed time.
 */
export async function replayed(primaryUrl: string, standbyUrl: string): Promise<void> {
  const { lsn } = await one<{ lsn: string }>(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
  await eventually(
    async () => {
      const r = await one<{ done: boolean }>(standbyUrl, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`);
      return r.done;
    },
    `the standby replays up to ${lsn}`,
    30_000,
  );
}

/** Stops (true) or resumes (false) replay on the standby: what it serves stays as it was meanwhile. */
export async function pauseReplay(standbyUrl: string, paused: boolean): Promise<void> {
  await one(standbyUrl, paused ? 'select pg_wal_replay_pause()' : 'select pg_wal_replay_resume()');
}
